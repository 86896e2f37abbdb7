// Router presence across the cluster: each node publishes the routers connected to it (at
// once on a change, and every few seconds), and keeps what the other live members publish, so a
// router is online while it is connected to any node. Reports of departed nodes are dropped.

import type { RouterPresence } from '../rpc/router-presence.js';
import type { Bus, Subscription } from '../bus/bus.js';
import { eventSubject } from '../bus/subjects.js';

export interface PresenceExchangeOptions {
  bus: Bus;
  clusterName: string;
  nodeId: string;
  presence: RouterPresence;
  /** The live members (node ids): reports of anyone else are forgotten. */
  liveMembers: () => readonly string[];
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

interface Report {
  node: string;
  routers: string[];
}

export class PresenceExchange {
  private sub?: Subscription;
  private timer?: NodeJS.Timeout;
  private unlisten?: () => void;
  private readonly subject: string;

  constructor(private readonly opts: PresenceExchangeOptions) {
    this.subject = eventSubject(`presence.${opts.clusterName}`);
  }

  async start(): Promise<void> {
    this.sub = await this.opts.bus.subscribe(this.subject, (msg) => this.heard(msg));
    this.unlisten = this.opts.presence.onLocalChange(() => this.publish());
    this.timer = setInterval(() => {
      this.forgetDeparted();
      this.publish();
    }, this.opts.intervalMs ?? 2_000);
    this.timer.unref();
    this.publish();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unlisten?.();
    await this.sub?.unsubscribe();
  }

  private publish(): void {
    const report: Report = { node: this.opts.nodeId, routers: this.opts.presence.onlineRouterIds() };
    this.opts.bus.publish(this.subject, report).catch((err) => this.opts.onError?.(err));
  }

  private heard(msg: unknown): void {
    const report = msg as Partial<Report> | undefined;
    if (typeof report?.node !== 'string' || !Array.isArray(report.routers) || report.node === this.opts.nodeId) return;
    if (!this.opts.liveMembers().includes(report.node)) return;
    this.opts.presence.setRemote(report.node, report.routers.filter((r): r is string => typeof r === 'string'));
  }

  private forgetDeparted(): void {
    const live = new Set(this.opts.liveMembers());
    for (const node of this.opts.presence.remoteNodes()) if (!live.has(node)) this.opts.presence.setRemote(node, []);
  }
}
