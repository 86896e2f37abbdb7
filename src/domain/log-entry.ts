// One entry of the command log, as every log implementation hands it over and the replica
// applies it. A type only: the log (below) and the store (which applies entries) both use it.

/** One entry: its sequence (1, 2, 3, ... with no gaps) and the command data. */
export interface LogEntry<C = unknown> {
  seq: number;
  command: C;
  /** When the log stored the entry (epoch ms), as the log itself recorded it, so every node sees
   * the same value: JetStreamLog sets the server's timestamp; LocalLog leaves it undefined. */
  timeMs?: number;
}
