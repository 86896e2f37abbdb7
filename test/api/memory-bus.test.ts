// The whole API suite over the embedded in-process bus.

import { runApiSuites } from './suites/index.js';
import { startTestNode } from '../support/test-node.js';

runApiSuites('api over the memory bus', () => startTestNode());
