export { localBackend, DEFAULT_LOCAL_MODEL, type LocalBackendOptions } from './local-backend.js';
export type { ModelConfig } from './model-config.js';
export { encodeSafetensors, decodeSafetensors, type HostTensor } from './safetensors.js';
export { CHECKPOINT_FORMAT, type CheckpointConfig } from './checkpoint.js';
