/** What the journal knew of a call when it was begun. */
export type JournalBegin =
  | { readonly state: 'new' }
  | { readonly state: 'running' }
  | { readonly state: 'finished'; readonly result: unknown };

/**
 * Where an agent tool fence records the calls that carry an idempotency key, per run, tool and
 * key (`entry`): `begin` answers and records atomically, so of two calls with one entry only one
 * is `new`.
 */
export interface ToolJournal {
  /** Records the call as running if the entry is unknown, and says what it knew. */
  begin(entry: string): Promise<JournalBegin>;
  /** The call finished with `result`: a retry is answered with it. */
  finish(entry: string, result: unknown): Promise<void>;
  /** The tool threw: the entry is forgotten, so a retry runs the tool again. */
  fail(entry: string): Promise<void>;
}

/**
 * A journal in this process's memory: retries are answered while the process lives and it holds
 * fewer than `maxEntries` calls (default 100000; past it the oldest finished calls are forgotten,
 * never a running one). A service of many processes needs a journal they share.
 */
export class InMemoryToolJournal implements ToolJournal {
  readonly #entries = new Map<string, { running: boolean; result?: unknown }>();
  readonly #maxEntries: number;

  constructor(options: { readonly maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  async begin(entry: string): Promise<JournalBegin> {
    const known = this.#entries.get(entry);
    if (known !== undefined) return known.running ? { state: 'running' } : { state: 'finished', result: known.result };
    if (this.#entries.size >= this.#maxEntries) {
      for (const [k, v] of this.#entries) {
        if (!v.running) {
          this.#entries.delete(k);
          break;
        }
      }
    }
    this.#entries.set(entry, { running: true });
    return { state: 'new' };
  }

  async finish(entry: string, result: unknown): Promise<void> {
    this.#entries.set(entry, { running: false, result });
  }

  async fail(entry: string): Promise<void> {
    this.#entries.delete(entry);
  }
}
