// Runs the Bus contract suite against MemoryBus (one instance serving as both connections).

import { MemoryBus } from '../../src/bus/memory-bus.js';
import { runBusContract } from './bus-contract.js';

/** The suite throws from an event handler on purpose; keep the test output clean. */
const quiet = (): void => undefined;

runBusContract('memory-bus', async () => {
  const bus = new MemoryBus({ onEventError: quiet });
  return { a: bus, b: bus, cleanup: () => bus.close() };
});
