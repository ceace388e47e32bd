// The load side of bench/chat-verdicts: runs in its own process, opens N WebSocket connections to a target,
// and sends chat frames either closed-loop (K in flight per connection, as fast as answers come) or open-loop
// (a fixed total rate). Prints one JSON line with throughput and latency percentiles.
//
//   node dist/bench/chatLoadClient.js <url> <token> closed <connections> <inFlight> <messages> <players>
//   node dist/bench/chatLoadClient.js <url> <token> rate <connections> <perSecond> <seconds> <players>

import { WebSocket } from 'ws';

const [url = '', token = '', mode = 'closed', a = '4', b = '64', c = '50000', d = '1000'] = process.argv.slice(2);
const connections = Number(a);
const players = Number(d);

function playerFrame(index: number, id: number): string {
  const steamId = `765611980${String(index % players).padStart(8, '0')}`;
  return `{"type":"chat","id":"${id}","player":{"steam_id":"${steamId}"},"channel":"global","text":"hello there"}`;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function open(): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  return socket;
}

async function main(): Promise<void> {
  const sockets = await Promise.all(Array.from({ length: connections }, open));
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let nextId = 0;
  let answered = 0;
  const total = mode === 'closed' ? Number(c) : Math.round(Number(b) * Number(c));
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const send = (socket: WebSocket): void => {
    const id = nextId++;
    sentAt.set(id, performance.now());
    socket.send(playerFrame(id, id));
  };

  for (const socket of sockets) {
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (!text.includes('"chat.verdict"')) return;
      const idMatch = /"id":"(\d+)"/.exec(text);
      const id = Number(idMatch?.[1]);
      const started = sentAt.get(id);
      if (started !== undefined) {
        latencies.push(performance.now() - started);
        sentAt.delete(id);
      }
      answered++;
      if (answered === total) finish();
      else if (mode === 'closed' && nextId < total) send(socket);
    });
  }

  const began = performance.now();
  if (mode === 'closed') {
    const inFlight = Number(b);
    for (const socket of sockets) for (let i = 0; i < inFlight && nextId < total; i++) send(socket);
  } else {
    // Open loop: a tick every 5 ms sends what the schedule says is due, spread over the connections.
    const perSecond = Number(b);
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - began) / 1000) * perSecond));
      while (nextId < due) send(sockets[nextId % sockets.length]!);
      if (nextId >= total) clearInterval(timer);
    }, 5);
  }
  await done;
  const elapsedS = (performance.now() - began) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  console.log(JSON.stringify({ messages: answered, perSecond: answered / elapsedS, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }));
  for (const socket of sockets) socket.close();
}

await main();
