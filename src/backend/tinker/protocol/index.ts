/**
 * The Tinker wire, defined once for `tinkerBackend` (client), `agentrl serve` (server) and the engine simulators:
 * routes, protobuf messages, the loss-config mapping of each `loss_fn` and the Adam defaults.
 */
export { TINKER_API_PREFIX, TINKER_ROUTES, tinkerPath } from './routes.js';
export { adamParamsFromWire, adamParamsToWire, TINKER_WIRE_ADAM_DEFAULTS, type TinkerAdamParams } from './adam.js';
export { LOSS_FN_CONFIG_KEYS, lossConfigFromWire, lossFnConfigOf, TINKER_CLIP_DEFAULTS, TINKER_LOSS_FNS } from './loss-fn.js';
export { decodeForwardBackwardProto, encodeForwardBackwardRequest, tinkerProto } from '../proto.js';
export { ADAM_DEFAULTS } from '../../adam-defaults.js';
