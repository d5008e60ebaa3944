import type { Message, ToolDefinition } from '../../types/message.js';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import type { TrajectoryError, TrajectoryStopReason, Turn } from '../../types/trajectory.js';
import type { DrivenTrajectory, DrivenTrajectoryContext } from '../../rollout/types.js';
import { untilAborted } from '../../rollout/abortable.js';
import { OpenAIApiError } from '../../serve/openai/api-error.js';
import type { ChatCompletionHooks, ChoiceResult } from '../../serve/openai/chat-completions.js';
import { assistantMessage, continues, messageKey, recordedAction } from './conversation.js';

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
export type AgentOutcome = { readonly kind: 'returned'; readonly value: unknown } | { readonly kind: 'threw'; readonly error: unknown } | { readonly kind: 'timeout'; readonly timeoutMs: number };

const budgetRefusal = (stop: TrajectoryStopReason, message: string) => new OpenAIApiError(400, message, { errorCode: stop });

/**
 * A choice as sent when its tool calls pass a budget: the text before the calls as the whole reply, no tool calls,
 * `finish_reason: 'stop'` — so the agent's loop ends (it has nothing to run) instead of running a call the rollout
 * does not allow.
 */
function withholdCalls(c: ChoiceResult): ChoiceResult {
  return { ...c, message: { content: c.message.content ?? '', toolCalls: [] }, finishReason: 'stop' };
}

/**
 * Records one rollout's model calls made through the recording endpoint and rebuilds the trajectory from them.
 * A request whose messages continue an earlier call (that call's messages, then the assistant message it was
 * answered, then anything) is rendered by extension of that call's exact prompt and sampled tokens
 * (`renderer.nextPrompt`), so its prompt extends them token for token; when the template rewrites history the
 * request is rendered whole (the prefix-mismatch policy then applies). Any other request opens a new conversation.
 */
export class RolloutRecorder {
  readonly #ctx: DrivenTrajectoryContext;
  readonly #signal: AbortSignal;
  readonly #calls: RecordedCall[] = [];
  /** Last call index of each conversation. */
  readonly #heads: number[] = [];
  #toolCalls = 0;
  #stop: TrajectoryStopReason | undefined;

  constructor(ctx: DrivenTrajectoryContext, signal: AbortSignal) {
    this.#ctx = ctx;
    this.#signal = signal;
  }

  /** The hooks that serve one request of this rollout. */
  hooks(): ChatCompletionHooks {
    let request: { messages: readonly Message[]; keys: string[]; toolsKey: string; parent: RecordedCall | undefined } | undefined;
    return {
      prompt: ({ messages, tools, body }) => {
        if (this.#signal.aborted) throw new OpenAIApiError(409, 'this rollout has ended', { errorCode: 'rollout_ended' });
        this.#checkBudgets();
        const keys = messages.map(messageKey);
        const toolsKey = JSON.stringify(tools);
        const parent = this.#parentOf(keys);
        request = { messages, keys, toolsKey, parent };
        const prompt = this.#render(messages, tools, parent, toolsKey, body.chat_template_kwargs ?? undefined);
        if (prompt.length >= this.#ctx.budgets.maxTrajectoryTokens) {
          this.#stop ??= 'max_trajectory_tokens';
          throw budgetRefusal('max_trajectory_tokens', `the prompt has ${prompt.length} tokens; this rollout allows ${this.#ctx.budgets.maxTrajectoryTokens} (maxTrajectoryTokens)`);
        }
        return prompt;
      },
      sample: (prompt, params) => this.#sample(prompt, params),
      onChoices: (choices, prompt) => (request ? choices.map((c, i) => this.#record(request!, prompt, c, i)) : choices),
    };
  }

  #checkBudgets(): void {
    const b = this.#ctx.budgets;
    if (this.#stop) throw budgetRefusal(this.#stop, `this rollout has ended (${this.#stop}); it takes no more model calls`);
    if (this.#calls.length >= b.maxTurns) {
      this.#stop = 'max_turns';
      throw budgetRefusal('max_turns', `this rollout allows ${b.maxTurns} model calls (maxTurns)`);
    }
  }

  /**
   * The budget a completion's tool calls would pass, as the rollout engine judges a turn: the calls would take the
   * rollout past `maxToolCalls` (every call of the turn counts), or this is the last model call `maxTurns` allows
   * (the model could never read the results). `undefined` when the calls may go to the agent.
   */
  #budgetPassedBy(calls: number): TrajectoryStopReason | undefined {
    if (calls === 0) return undefined;
    const b = this.#ctx.budgets;
    if (this.#toolCalls + calls > b.maxToolCalls) return 'max_tool_calls';
    if (this.#calls.length + 1 >= b.maxTurns) return 'max_turns';
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

  #render(messages: readonly Message[], tools: readonly ToolDefinition[], parent: RecordedCall | undefined, toolsKey: string, kwargs: Readonly<Record<string, unknown>> | undefined): number[] {
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

  /** Samples with the rollout's settings (the agent's temperature and top-p are not used: the learner assumes these). */
  async #sample(prompt: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const { budgets, sampling } = this.#ctx;
    const maxTokens = Math.min(params.maxTokens, budgets.maxTurnTokens, budgets.maxTrajectoryTokens - prompt.length);
    const seed = this.#ctx.seedFor(this.#calls.length);
    const call: SamplingParams = {
      numSamples: params.numSamples ?? 1,
      maxTokens,
      temperature: sampling?.temperature ?? 1,
      topP: sampling?.topP ?? 1,
      ...(sampling?.topK !== undefined ? { topK: sampling.topK } : {}),
      ...(params.stop ? { stop: params.stop } : {}),
      ...(seed !== undefined ? { seed } : {}),
      signal: this.#signal,
    };
    return untilAborted(this.#ctx.sampler.sample(prompt, call), this.#signal);
  }

  /** Records one sampled choice and returns the choice to send: as sampled, or with its tool calls withheld once a budget ends the rollout. */
  #record(req: { messages: readonly Message[]; keys: string[]; toolsKey: string; parent: RecordedCall | undefined }, prompt: readonly number[], c: ChoiceResult, i: number): ChoiceResult {
    if (this.#signal.aborted) return c;
    const passed = this.#budgetPassedBy(c.message.toolCalls.length);
    if (passed) this.#stop ??= passed;
    const sent = c.message.toolCalls.length > 0 && this.#stop ? withholdCalls(c) : c;
    const index = this.#calls.length;
    // The first choice continues its parent's conversation when the parent is that conversation's latest call; a
    // fork from an earlier call, another choice (n > 1) or a fresh conversation is a conversation of its own.
    const parent = i === 0 ? req.parent : undefined;
    const conversation = parent && this.#heads[parent.conversation] === parent.index ? parent.conversation : this.#heads.length;
    if (conversation === this.#heads.length) this.#heads.push(index);
    else this.#heads[conversation] = index;
    // The model's action is recorded as sampled; the agent gets (and sends back) the message actually sent.
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
    return sent;
  }

  /**
   * The trajectory: the recorded calls as turns, each conversation's calls together (in the order conversations
   * began), a conversation's first turn marked `newDatum`; `messages` is the last call's conversation and reply.
   */
  trajectory(outcome: AgentOutcome, envName: string): DrivenTrajectory {
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
      error: { stage, message, env: envName, ...(cause !== undefined ? { cause } : {}), ...(cause instanceof Error ? { code: (cause as { code?: string }).code ?? cause.name } : {}) },
    });
    if (this.#stop) return { ...base, stopReason: this.#stop, finalText: last?.assistant.content ?? '', ...(outcome.kind === 'returned' ? { agentOutput: outcome.value } : {}) };
    if (outcome.kind === 'timeout') return failed(`the agent did not finish within ${outcome.timeoutMs} ms`, 'timeout');
    if (outcome.kind === 'threw') return failed(`the agent threw: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`, 'agent', outcome.error);
    if (calls.length === 0) return failed('the agent returned without calling the model', 'agent');
    const v = outcome.value;
    const answer = typeof v === 'string' ? v : typeof (v as { answer?: unknown } | null)?.answer === 'string' ? (v as { answer: string }).answer : (last?.assistant.content ?? '');
    return { ...base, stopReason: 'answer', finalText: answer, agentOutput: v };
  }
}
