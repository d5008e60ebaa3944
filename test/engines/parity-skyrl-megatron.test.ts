import { describeEngineParity } from './cases.js';

describeEngineParity('skyrl-megatron');
