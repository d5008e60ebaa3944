/**
 * `agentrl/otel` — OpenTelemetry tracing of rollouts as a Trainer metrics sink. Needs `@opentelemetry/api` (an
 * optional peer dependency: install it beside agentrl) and an OpenTelemetry SDK that registers a tracer provider.
 * @packageDocumentation
 */
export { otelSink, type OtelSinkOptions } from './otel-sink.js';
