import { describeEngineParity } from './cases.js';

describeEngineParity('tinker');
