export { tinkerBackend, type TinkerBackend, type TinkerModelInfo } from './tinker-backend.js';
export { TINKER_CHECKPOINT_FILE, type CheckpointPointer } from './checkpoint-pointer.js';
export {
  TINKER_HOSTED_URL,
  type TinkerBackendOptions,
  type TinkerLoraOptions,
  type TinkerTimeouts,
  type TinkerRetryOptions,
  type TinkerRendererSource,
} from './options.js';
export { TinkerSamplingClient, checkSamplingParams } from './sampling-client.js';
export { planForwardBackward, checkLossSupported, type TinkerLossPlan, type TinkerLossFn } from './loss-mapping.js';
export { loadModelFolderRenderer } from './renderer-source.js';
export { tinkerProto } from './proto.js';
export {
  downloadCheckpoint,
  listCheckpoints,
  parseTinkerCheckpointPath,
  type DownloadCheckpointOptions,
  type DownloadedCheckpoint,
  type TinkerCheckpoint,
  type TinkerRestOptions,
} from './checkpoints.js';
export { TINKER_PROTOCOL_VERSION, type TinkerServerConfig } from './server-config.js';
export { TINKER_USER_AGENT } from './http.js';
export {
  ENGINE_NAMES,
  ENGINE_PROFILES,
  ADAM_FIELDS,
  engineProfile,
  type EngineName,
  type EngineOption,
  type EngineProfile,
  type EngineLoss,
  type LossNormalisation,
  type SamplerFreezing,
  type AdamField,
} from './engines/profiles.js';
export { checkEngineOptions } from './engines/check-options.js';
