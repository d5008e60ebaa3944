import { describeEngineParity } from './cases.js';

describeEngineParity('open-rl');
