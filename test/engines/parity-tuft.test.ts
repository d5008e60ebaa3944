import { describeEngineParity } from './cases.js';

describeEngineParity('tuft');
