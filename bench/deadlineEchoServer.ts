// The baseline of bench/chat-deadline, in its own process: a bare `ws` server that answers every chat line with
// the policy's verdict after exactly the decision timeout, one timer per line. What it shows past the deadline
// is the machine's and the event loop's own lag, the floor for the sidecar.
//
//   node dist/bench/deadlineEchoServer.js <decisionTimeoutMs>     (prints "listening on <port>")

import { WebSocketServer, type WebSocket } from 'ws';

const timeoutMs = Number(process.argv[2] ?? 300);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
server.on('connection', (socket: WebSocket) => {
  socket.on('message', (data: Buffer) => {
    const { id } = JSON.parse(data.toString()) as { id?: string };
    setTimeout(() => {
      socket.send(JSON.stringify({ type: 'chat.verdict', id, allow: true, reason: 'unknown' }));
    }, timeoutMs);
  });
});
server.once('listening', () => {
  const address = server.address();
  process.stdout.write(`listening on ${typeof address === 'object' && address !== null ? address.port : String(address)}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  process.exit(0);
});
