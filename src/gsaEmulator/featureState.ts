/**
 * What the emulator remembers for GSA's Mod API v2 features other than the shop (shopState.ts): each player's access
 * (whitelist, message, custom roles), each server's report form, the reports it stored, and each server's UI settings
 * and button modal. Defaults stand in until a control call sets something, so a fresh emulator answers like a GSA
 * dashboard with the features switched on.
 * Must never do I/O or know about HTTP, and never keep a per-request record beyond the reports it stored.
 */
/** A player's standing in the access check (`integration-mod`). */
export interface AccessRecord {
  readonly allowed: boolean;
  /** GSA's words, e.g. "You are not on the whitelist"; null for none. */
  readonly message: string | null;
  /** Custom roles: role id → ISO expiry. GSA sends an empty map as `[]`. */
  readonly roles: Readonly<Record<string, string>>;
  readonly usernameAccepted: boolean;
}

export const DEFAULT_ACCESS: AccessRecord = Object.freeze({ allowed: true, message: null, roles: Object.freeze({}), usernameAccepted: true });

export interface ReportPlayer {
  readonly id: number;
  readonly user_id: number;
  readonly name: string;
}

export interface ReportType {
  readonly id: number | string;
  readonly name: string;
}

/** A server's report form, as `GET …/report` answers it under `data` (besides its identifier). */
export interface ReportSettings {
  readonly title: string;
  readonly description: string;
  /** players[0] is GSA's placeholder, user_id 0. */
  readonly players: readonly ReportPlayer[];
  readonly types: readonly ReportType[];
}

export const DEFAULT_REPORT_SETTINGS: ReportSettings = Object.freeze({
  title: 'Report a player',
  description: 'Tell the admins what happened. False reports may get you banned.',
  players: [
    { id: 0, user_id: 0, name: ' - Select player - ' },
    { id: 1, user_id: 101, name: 'Alice' },
    { id: 2, user_id: 102, name: 'Mallory' },
  ],
  types: [
    { id: 1, name: 'Cheating' },
    { id: 2, name: 'Harassment' },
    { id: 3, name: 'Other' },
  ],
});

/** The player a feature request named, as a stored report or an arrival record shows it. */
export interface PlayerRef {
  readonly steamId?: string;
  readonly eosId?: string;
}

/** A report the emulator stored. */
export interface StoredReport extends PlayerRef {
  readonly server: string;
  readonly comment: string;
  readonly characterId: number;
  readonly coords: string;
  /** As sent: the form carries text, so a numeric type id arrives as its digits. */
  readonly type: string;
  readonly reportedPlayer?: number;
  /** Arrival time of the request that stored it, from the emulator's clock. */
  readonly at: number;
}

export const DEFAULT_MOD_SETTINGS: Readonly<Record<string, unknown>> = Object.freeze({
  'modal-activate-button': 'F1',
  'shop-activate-button': 'F2',
  'review-activate-button': 'F3',
  'review-title': 'Rate us',
  'report-activate-button': 'F4',
  'modal-radial': true,
  'shop-radial': true,
  'review-radial': false,
  'report-radial': false,
});

export const DEFAULT_BUTTON_MODAL: Readonly<Record<string, unknown>> = Object.freeze({
  title: 'Vote for us',
  description: 'Every vote helps the server grow. Thank you!',
  buttons: [
    { text: 'Vote on a server list', url: 'https://example.com/vote' },
    { text: 'Join our Discord', url: 'https://example.com/discord' },
  ],
});

/** What `GET /_emulator/state` shows of these features under `features`. */
export interface FeatureSnapshot {
  /** Players whose access was set, by id. */
  readonly access: Record<string, AccessRecord>;
  readonly reports: StoredReport[];
}

export class FeatureState {
  /** player id (as sent: Steam64 or lower-case EOS) → access; absent: DEFAULT_ACCESS. */
  readonly #access = new Map<string, AccessRecord>();
  readonly #reportSettings = new Map<string, ReportSettings>();
  #reports: StoredReport[] = [];
  readonly #modSettings = new Map<string, Readonly<Record<string, unknown>>>();
  readonly #buttonModals = new Map<string, Readonly<Record<string, unknown>>>();

  setAccess(player: string, access: AccessRecord): void {
    this.#access.set(player.toLowerCase(), access);
  }

  access(player: string): AccessRecord {
    return this.#access.get(player.toLowerCase()) ?? DEFAULT_ACCESS;
  }

  /** Replaces the parts of a server's report form given; the others stay. */
  setReportSettings(server: string, settings: { readonly [K in keyof ReportSettings]?: ReportSettings[K] | undefined }): void {
    const given = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Partial<ReportSettings>;
    this.#reportSettings.set(server, { ...this.reportSettings(server), ...given });
  }

  reportSettings(server: string): ReportSettings {
    return this.#reportSettings.get(server) ?? DEFAULT_REPORT_SETTINGS;
  }

  addReport(report: StoredReport): void {
    this.#reports.push(report);
  }

  get reports(): readonly StoredReport[] {
    return [...this.#reports];
  }

  /** Replaces the body a server's `settings` (or `button-modal`) answers, its identifier aside. */
  setUi(server: string, ui: { readonly settings?: Readonly<Record<string, unknown>>; readonly buttonModal?: Readonly<Record<string, unknown>> }): void {
    if (ui.settings !== undefined) this.#modSettings.set(server, ui.settings);
    if (ui.buttonModal !== undefined) this.#buttonModals.set(server, ui.buttonModal);
  }

  modSettings(server: string): Readonly<Record<string, unknown>> {
    return this.#modSettings.get(server) ?? DEFAULT_MOD_SETTINGS;
  }

  buttonModal(server: string): Readonly<Record<string, unknown>> {
    return this.#buttonModals.get(server) ?? DEFAULT_BUTTON_MODAL;
  }

  reset(): void {
    this.#access.clear();
    this.#reportSettings.clear();
    this.#reports = [];
    this.#modSettings.clear();
    this.#buttonModals.clear();
  }

  snapshot(): FeatureSnapshot {
    return { access: Object.fromEntries(this.#access), reports: [...this.#reports] };
  }
}
