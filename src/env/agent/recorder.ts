import type { ServerResponse } from 'node:http';
import type { Message, ToolDefinition } from '../../types/message.js';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import type { TrajectoryError, TrajectoryStopReason, Turn } from '../../types/trajectory.js';
import type { DrivenTrajectory, DrivenTrajectoryContext } from '../driven.js';
import { untilAborted } from '../../util/until-aborted.js';
import { turnSamplingParams, turnTokenLimit } from '../../types/turn-sampling.js';
import { OpenAIApiError } from '../../endpoint/openai/api-error.js';
import type { ChoiceResult, TurnHooks, TurnRequest, TurnTicket } from '../../endpoint/openai/chat-turn.js';
import { assistantMessage, continues, messageKey, recordedAction } from './conversation.js';
import { maxTokenBytes, requestTextBytes } from './size-bound.js';
/** One choice the policy sampled for the agent, exactly as sampled. */
interface RecordedCall {
  readonly index: number;
  readonly messages: readonly Message[];
  readonly keys: readonly string[];
  readonly toolsKey: string;
  readonly promptTokens: readonly number[];
  readonly seq: SampledSequence;
  readonly text: string;
  readonly assistant: Message;
  readonly assistantKey: string;
  readonly action: Turn['action'];
  /** Conversation id: calls of one conversation extend each other. */
  readonly conversation: number;
}

/** How the agent's `run()` ended. */
export type AgentOutcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'timeout'; readonly timeoutMs: number };

const budgetRefusal = (stop: TrajectoryStopReason, message: string) => new OpenAIApiError(400, message, { errorCode: stop });

/**
 * A choice as sent when its tool calls pass a budget: the text before the calls as the whole reply, no tool calls,
 * `finish_reason: 'stop'` — so the agent's loop ends (it has nothing to run) instead of running a call the rollout
 * does not allow.
 */
function withholdCalls(c: ChoiceResult): ChoiceResult {
  return { ...c, message: { content: c.message.content ?? '', toolCalls: [] }, finishReason: 'stop' };
}

/** A request as admitted: its conversation, the keys it is matched by, its tools and template variables. */
interface AdmittedRequest {
  readonly messages: readonly Message[];
  readonly keys: readonly string[];
  readonly tools: readonly ToolDefinition[];
  readonly toolsKey: string;
  readonly templateKwargs: Readonly<Record<string, unknown>> | undefined;
}

/** One admitted completion, from admission to its record (or release). */
class Ticket implements TurnTicket {
  state: 'admitted' | 'chosen' | 'delivering' | 'done' = 'admitted';
  /** The choices as sampled and as sent, once chosen. */
  chosen: { readonly sampled: ChoiceResult; readonly sent: ChoiceResult }[] = [];
  /** Tool calls handed to the agent by the chosen choices. */
  toolCalls = 0;
  /** The budget this completion ends the rollout with once recorded. */
  stop: TrajectoryStopReason | undefined;
  promptTokens: readonly number[] = [];
  /** The earlier call the prompt was rendered as an extension of (the parent it continues), if any. */
  parent: RecordedCall | undefined;
  settled: () => void = () => {};
  readonly done: Promise<void> = new Promise((r) => (this.settled = r));

  constructor(
    readonly recorder: RolloutRecorder,
    readonly request: AdmittedRequest,
    /** Model calls reserved: the request's `n`. */
    readonly n: number,
    /** Index of the first reserved call among the rollout's calls (its sampling seed). */
    readonly ordinal: number,
  ) {}
  prompt(): number[] {
    return this.recorder.promptOf(this);
  }
  sample(prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    return this.recorder.sampleFor(this, prompt, params);
  }
  choose(choices: readonly ChoiceResult[]): readonly ChoiceResult[] {
    return this.recorder.choose(this, choices);
  }
  deliverOn(res: ServerResponse, onCommit?: () => void): void {
    if (this.state !== 'chosen') return;
    this.state = 'delivering';
    if (res.destroyed || (res.closed && !res.writableFinished)) {
      this.release();
      return;
    }
    res.once('finish', () => (res.statusCode < 300 ? this.recorder.commit(this, onCommit) : this.release()));
    res.once('close', () => {
      if (!res.writableFinished) this.release();
    });
  }
  release(): void {
    this.recorder.release(this);
  }
}

/**
 * Records one rollout's model calls made through the recording endpoint, on any wire (chat completions, responses,
 * messages), and rebuilds the trajectory from them.
 *
 * Each completion is admitted once, synchronously, before any rendering: the rollout still live, no budget ended, `n`
 * model calls left under `maxTurns` counting every completion admitted and not yet released (so concurrent requests
 * on one key cannot all pass), and the request's text no more than `maxTrajectoryTokens × longest token` bytes (an
 * O(bytes) bound, so a huge message is refused without being tokenised). It is recorded only when the agent received
 * it: its response written completely with a 2xx status; a request answered with an error, or whose client went away
 * first, records nothing and frees its admission.
 *
 * A request whose messages continue an earlier call (that call's messages, then the assistant message it was
 * answered, then anything) is rendered by extension of that call's exact prompt and sampled tokens
 * (`renderer.nextPrompt`), so its prompt extends them token for token; when the template rewrites history the
 * request is rendered whole (the prefix-mismatch policy then applies). Any other request opens a new conversation.
 */
export class RolloutRecorder {
  readonly #ctx: DrivenTrajectoryContext;
  readonly #signal: AbortSignal;
  /** Aborted when the recorder closes (the agent is done): sampling for it stops. */
  readonly #closing = new AbortController();
  readonly #calls: RecordedCall[] = [];
  /** Last call index of each conversation. */
  readonly #heads: number[] = [];
  readonly #live = new Set<Ticket>();
  /** Model calls held by live tickets (their `n`). */
  #reserved = 0;
  #toolCalls = 0;
  #stop: TrajectoryStopReason | undefined;
  #closed = false;
  /** The Responses API conversations this rollout was answered, by response id. */
  readonly #responses = new Map<string, readonly Message[]>();

  constructor(ctx: DrivenTrajectoryContext, signal: AbortSignal) {
    this.#ctx = ctx;
    this.#signal = signal;
  }

  /** The hooks that serve this rollout's requests. */
  hooks(): TurnHooks {
    return { begin: (turn) => this.#admit(turn), responses: this.#responses };
  }

  #admit(turn: TurnRequest): TurnTicket {
    if (this.#closed || this.#signal.aborted) throw new OpenAIApiError(409, 'this rollout has ended', { errorCode: 'rollout_ended' });
    const b = this.#ctx.budgets;
    const stop = this.#stop ?? [...this.#live].find((t) => t.stop)?.stop;
    if (stop) throw budgetRefusal(stop, `this rollout has ended (${stop}); it takes no more model calls`);
    const left = b.maxTurns - this.#calls.length - this.#reserved;
    if (left <= 0) {
      if (this.#reserved === 0) this.#stop = 'max_turns';
      throw budgetRefusal(
        'max_turns',
        `this rollout allows ${b.maxTurns} model calls (maxTurns)${this.#reserved ? `, ${this.#reserved} of them in flight` : ''}`,
      );
    }
    if (turn.n > left)
      throw new OpenAIApiError(400, `n = ${turn.n} asks for ${turn.n} completions; this rollout has ${left} model calls left (maxTurns)`, {
        param: 'n',
        errorCode: 'max_turns',
      });
    const bytes = requestTextBytes(turn.messages, turn.tools, turn.templateKwargs);
    const bound = b.maxTrajectoryTokens * maxTokenBytes(this.#ctx.renderer);
    if (bytes > bound) {
      this.#stop ??= 'max_trajectory_tokens';
      throw budgetRefusal(
        'max_trajectory_tokens',
        `the request has ${bytes} bytes of text, more than ${b.maxTrajectoryTokens} tokens can hold (maxTrajectoryTokens)`,
      );
    }
    const keys = turn.messages.map(messageKey);
    const request = { messages: turn.messages, keys, tools: turn.tools, toolsKey: JSON.stringify(turn.tools), templateKwargs: turn.templateKwargs };
    const ticket = new Ticket(this, request, turn.n, this.#calls.length + this.#reserved);
    this.#live.add(ticket);
    this.#reserved += turn.n;
    return ticket;
  }

  /** @internal The ticket's prompt; refuses (and releases it) past `maxTrajectoryTokens`. */
  promptOf(t: Ticket): number[] {
    const { messages, keys, tools, toolsKey, templateKwargs } = t.request;
    t.parent = this.#parentOf(keys);
    const prompt = this.#render(messages, tools, t.parent, toolsKey, templateKwargs);
    if (prompt.length >= this.#ctx.budgets.maxTrajectoryTokens) {
      this.release(t);
      this.#stop ??= 'max_trajectory_tokens';
      throw budgetRefusal(
        'max_trajectory_tokens',
        `the prompt has ${prompt.length} tokens; this rollout allows ${this.#ctx.budgets.maxTrajectoryTokens} (maxTrajectoryTokens)`,
      );
    }
    t.promptTokens = prompt;
    return prompt;
  }

  /**
   * The budget a completion's tool calls would pass, as the rollout engine judges a turn: the calls would take the
   * rollout past `maxToolCalls` (every call of the turn counts), or this is the last model call `maxTurns` allows
   * (the model could never read the results). `turn`: the call's index among the rollout's calls.
   */
  #budgetPassedBy(calls: number, toolCallsBefore: number, turn: number): TrajectoryStopReason | undefined {
    if (calls === 0) return undefined;
    const b = this.#ctx.budgets;
    if (toolCallsBefore + calls > b.maxToolCalls) return 'max_tool_calls';
    if (turn + 1 >= b.maxTurns) return 'max_turns';
    return undefined;
  }

  /** The latest earlier call this request continues (longest match), if any. */
  #parentOf(keys: readonly string[]): RecordedCall | undefined {
    let best: RecordedCall | undefined;
    for (const c of this.#calls) {
      if ((best === undefined || c.keys.length >= best.keys.length) && continues(keys, c.keys, c.assistantKey)) best = c;
    }
    return best;
  }

  #render(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    parent: RecordedCall | undefined,
    toolsKey: string,
    kwargs: Readonly<Record<string, unknown>> | undefined,
  ): number[] {
    const { renderer } = this.#ctx;
    const templateKwargs = kwargs ?? this.#ctx.templateKwargs;
    const kw = templateKwargs ? { templateKwargs } : {};
    if (parent && parent.toolsKey === toolsKey) {
      try {
        return renderer.nextPrompt({
          messagesBeforeAssistant: parent.messages,
          prevPromptTokens: parent.promptTokens,
          completionTokens: parent.seq.tokens,
          observation: messages.slice(parent.messages.length + 1),
          tools,
          ...kw,
        });
      } catch {
        // the template rewrites history (or the tools changed): rendered whole below
      }
    }
    return renderer.renderPrompt(messages, { tools, addGenerationPrompt: true, ...kw });
  }

  /**
   * @internal Samples with the rollout's settings (the agent's temperature and top-p are not used: the learner
   * assumes these); stops when the rollout ends, the recorder closes or the client goes away (`params.signal`).
   */
  async sampleFor(t: Ticket, prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const { budgets, sampling } = this.#ctx;
    const { maxTokens } = turnTokenLimit(budgets, prompt.length, params.maxTokens);
    const signal = AbortSignal.any([this.#signal, this.#closing.signal, ...(params.signal ? [params.signal] : [])]);
    const call = turnSamplingParams(sampling, {
      numSamples: t.n,
      maxTokens,
      stop: params.stop,
      topLogprobs: params.topLogprobs,
      seed: this.#ctx.seedFor(t.ordinal),
      signal,
    });
    const seqs = await untilAborted(this.#ctx.sampler.sample(prompt, call), signal);
    if (t.state !== 'admitted') throw new OpenAIApiError(409, 'this rollout has ended', { errorCode: 'rollout_ended' });
    return seqs;
  }

  /**
   * @internal The choices to send: as sampled, or — once a choice's tool calls pass a budget (counting every
   * completion chosen and not yet released) — with its calls withheld. Reserves the tool calls it hands out.
   */
  choose(t: Ticket, choices: readonly ChoiceResult[]): readonly ChoiceResult[] {
    if (t.state !== 'admitted' || this.#closed) throw new OpenAIApiError(409, 'this rollout has ended', { errorCode: 'rollout_ended' });
    let toolCalls = this.#toolCalls;
    let turns = this.#calls.length;
    for (const o of this.#live) {
      if (o === t || (o.state !== 'chosen' && o.state !== 'delivering')) continue;
      toolCalls += o.toolCalls;
      turns += o.chosen.length;
    }
    let stop: TrajectoryStopReason | undefined;
    const sent = choices.map((c, i) => {
      const passed = this.#budgetPassedBy(c.message.toolCalls.length, toolCalls + t.toolCalls, turns + i);
      stop ??= passed;
      const s = c.message.toolCalls.length > 0 && stop ? withholdCalls(c) : c;
      t.toolCalls += s.message.toolCalls.length;
      t.chosen.push({ sampled: c, sent: s });
      return s;
    });
    t.stop = stop;
    t.state = 'chosen';
    return sent;
  }

  /** @internal Frees a ticket's admission; records nothing. */
  release(t: Ticket): void {
    if (t.state === 'done') return;
    t.state = 'done';
    this.#live.delete(t);
    this.#reserved -= t.n;
    t.settled();
  }

  /** @internal Records a delivered ticket's choices (nothing once the recorder closed). */
  commit(t: Ticket, onCommit?: () => void): void {
    if (t.state !== 'delivering') return;
    const closed = this.#closed;
    this.release(t);
    if (closed) return;
    t.chosen.forEach(({ sampled, sent }, i) => {
      this.#record(t.request, t.promptTokens, i === 0 ? t.parent : undefined, sampled, sent);
    });
    if (t.stop) this.#stop ??= t.stop;
    onCommit?.();
  }

  /**
   * Waits (at most `graceMs`) for responses already being written to reach the agent, then closes: later commits are
   * ignored, sampling for this rollout stops, and the key's requests are refused.
   */
  async close(graceMs = 2000): Promise<void> {
    const delivering = [...this.#live].filter((t) => t.state === 'delivering').map((t) => t.done);
    if (delivering.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(delivering), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    this.#closed = true;
    this.#closing.abort(new Error('the agent finished'));
  }

  /** Records one chosen choice: the model's action as sampled; the agent gets (and sends back) the message sent. */
  #record(req: AdmittedRequest, prompt: readonly number[], parent: RecordedCall | undefined, c: ChoiceResult, sent: ChoiceResult): void {
    const index = this.#calls.length;
    // The first choice continues its parent's conversation when the parent is that conversation's latest call; a
    // fork from an earlier call, another choice (n > 1) or a fresh conversation is a conversation of its own.
    const conversation = parent && this.#heads[parent.conversation] === parent.index ? parent.conversation : this.#heads.length;
    if (conversation === this.#heads.length) this.#heads.push(index);
    else this.#heads[conversation] = index;
    const assistant = assistantMessage(sent.message);
    this.#toolCalls += sent.message.toolCalls.length;
    this.#calls.push({
      index,
      messages: req.messages,
      keys: req.keys,
      toolsKey: req.toolsKey,
      promptTokens: prompt,
      seq: c.seq,
      text: c.text,
      assistant,
      assistantKey: messageKey(assistant),
      action: recordedAction(c.text, c.message, assistantMessage(c.message)),
      conversation,
    });
    this.#ctx.onTurn?.({
      trajectoryId: this.#ctx.trajectoryId,
      groupIndex: this.#ctx.groupIndex,
      turnIndex: index,
      action: c.message.toolCalls.length > 0 ? 'tool' : 'answer',
      toolCalls: c.message.toolCalls.length,
      completionTokens: c.seq.tokens.length,
      toolMs: 0,
    });
  }

  /**
   * The trajectory: the recorded calls as turns, each conversation's calls together (in the order conversations
   * began), a conversation's first turn marked `newDatum`; `messages` is the last call's conversation and reply.
   */
  trajectory(outcome: AgentOutcome, envName: string): DrivenTrajectory {
    if (!this.#closed) {
      this.#closed = true;
      this.#closing.abort(new Error('the agent finished'));
    }
    const calls = this.#calls;
    const order = [...calls].sort((a, b) => a.conversation - b.conversation || a.index - b.index);
    const next = new Map<number, RecordedCall>();
    for (let k = 0; k + 1 < order.length; k++) if (order[k]!.conversation === order[k + 1]!.conversation) next.set(order[k]!.index, order[k + 1]!);
    const turns: Turn[] = order.map((c, k) => {
      const after = next.get(c.index);
      return {
        promptTokens: c.promptTokens,
        completionTokens: c.seq.tokens,
        logprobs: c.seq.logprobs,
        text: c.text,
        stopReason: c.seq.stopReason,
        action: c.action,
        ...(after ? { observation: after.messages.slice(c.messages.length + 1) } : {}),
        ...(k > 0 && order[k - 1]!.conversation !== c.conversation ? { newDatum: true } : {}),
      };
    });
    const last = calls[calls.length - 1];
    const messages = last ? [...last.messages, last.assistant] : [];
    const base = { messages, turns, toolCalls: this.#toolCalls };
    const failed = (message: string, stage: TrajectoryError['stage'], cause?: unknown): DrivenTrajectory => ({
      ...base,
      stopReason: 'error',
      finalText: '',
      error: {
        stage,
        message,
        env: envName,
        ...(cause !== undefined ? { cause } : {}),
        ...(cause instanceof Error ? { code: (cause as { code?: string }).code ?? cause.name } : {}),
      },
    });
    if (this.#stop)
      return {
        ...base,
        stopReason: this.#stop,
        finalText: last?.assistant.content ?? '',
        ...(outcome.kind === 'returned' ? { agentOutput: outcome.value } : {}),
      };
    if (outcome.kind === 'timeout') return failed(`the agent did not finish within ${outcome.timeoutMs} ms`, 'timeout');
    if (outcome.kind === 'threw')
      return failed(`the agent threw: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`, 'agent', outcome.error);
    if (calls.length === 0) return failed('the agent returned without calling the model', 'agent');
    const v = outcome.value;
    const answer =
      typeof v === 'string'
        ? v
        : typeof (v as { answer?: unknown } | null)?.answer === 'string'
          ? (v as { answer: string }).answer
          : (last?.assistant.content ?? '');
    return { ...base, stopReason: 'answer', finalText: answer, agentOutput: v };
  }
}
