// Shared types of benchmark scenarios.

import type { RunningNode } from '../lib/harness.js';

export interface Row {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  baselineRps?: number;
  ratio?: number;
  /** Extra measured value (e.g. seconds to serving), when the row is not a load run. */
  value?: string;
  target: string;
  /** undefined = informational row. */
  pass?: boolean;
  statuses?: Record<string, number>;
  errors?: number;
}

export interface ScenarioContext {
  pairs: number;
  timing: { durationMs: number; warmupMs: number };
  caFile(node: RunningNode): string;
  log(message: string): void;
}

export type Scenario = (ctx: ScenarioContext) => Promise<Row[]>;
