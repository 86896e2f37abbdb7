// Runs the Log contract against MemoryLog.

import { MemoryLog } from '../../src/log/memory-log.js';
import { runLogContract } from './log-contract.js';

runLogContract('memory-log', async () => ({ log: new MemoryLog(), cleanup: async () => {} }));
