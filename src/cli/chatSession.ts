/**
 * One `baton chat` in the terminal: lines in, replies out as they form, the slash commands, and
 * approvals shown as they start waiting while a message is answered.
 */
import readline from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Baton } from '../client/baton';
import type { Conversation } from '../client/conversation';
import { runEvents } from '../client/events';
import type { RunEvent } from '../client/runEvent';
import type { ConversationReply } from '../common/conversation';
import { displayText } from '../common/display';
import { COMMANDS_HELP, endedLine, historyLine, pastTurnLines, shown, statusLine } from './chatLines';
import { type CommandContext, ExitCode } from './context';
import { InFlight } from './inFlight';
import { LiveText } from './liveText';
import { formatDecision, formatDelegation, formatHandoff, formatWaiting, type Print } from './print';
import { cliSigner } from './signing';

/** One chat in the terminal: lines in, replies out, approvals shown while a message is answered. */
export class ChatSession {
  private rl?: readline.Interface;
  private agent: string;
  private inFlight = 0;
  private readonly announced = new Set<string>();
  private watching?: NodeJS.Timeout;
  private pending: string[] = [];
  /** The answer being written, above the prompt. */
  private readonly text = new LiveText((t) => process.stdout.write(t), '');
  /** The conversation's events, read while the chat lasts for the delegations they show. */
  private events?: AsyncGenerator<RunEvent>;
  /** The delegations under way, shown before the prompt with their time on a terminal ("(lead waits for physics… 8.2 s) lead> "). */
  private readonly delegations = new InFlight();
  private ticking?: NodeJS.Timeout;
  /**
   * Said once when a reply arrives whole that no text came for as it formed: why, and how to have
   * it (see `unstreamedNote`).
   */
  textNote?: string;

  constructor(
    private readonly chat: Conversation<unknown>,
    private readonly baton: Baton,
    private readonly approver: string,
    private readonly ctx: CommandContext,
  ) {
    this.agent = chat.agent;
  }

  async run(resume: string): Promise<number> {
    const ended = await this.greet();
    if (ended !== undefined) return ended;
    const rl = readline.createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: process.stdin.isTTY && process.stdout.isTTY,
    });
    this.rl = rl;
    // In the prompt the terminal's Ctrl-C reaches readline, not the process: pass it on.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    this.prompt();
    return new Promise<number>((resolve) => {
      const leave = (code: number) => {
        this.close();
        resolve(code);
      };
      rl.on('close', () => {
        this.rl = undefined;
        this.say(
          `left the conversation; it stays open${this.inFlight > 0 ? ' and answers what you sent' : ''}. ${resume}`,
        );
        leave(ExitCode.OK);
      });
      rl.on('line', (line) => {
        this.onLine(line.trim()).then(
          (done) => {
            if (done === 'end') leave(ExitCode.OK);
            else if (done === 'quit') rl.close();
            else this.prompt();
          },
          (err: Error) => {
            this.say(`✗ ${err.name}: ${err.message}`);
            this.prompt();
          },
        );
      });
    });
  }

  close(): void {
    // Not awaited: a history long-poll still open would hold it up.
    void this.events?.return(undefined).catch(() => undefined);
    if (this.watching) clearInterval(this.watching);
    this.watching = undefined;
    if (this.ticking) clearInterval(this.ticking);
    this.ticking = undefined;
    this.rl?.removeAllListeners('close');
    this.rl?.close();
  }

  /** Say whose conversation this is; going on with one, show its turns so far. An ended one cannot go on. */
  private async greet(): Promise<number | undefined> {
    const view = await this.chat.status().catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
    if (view?.status === 'ended') {
      this.ctx.err(`conversation ${this.chat.id} has ended; start a new one without --id`);
      return ExitCode.FAILURE;
    }
    this.ctx.out(
      `conversation ${this.chat.id}${view ? ` (${view.turns} turn${view.turns === 1 ? '' : 's'} so far)` : ''} — /help for commands`,
    );
    if (view) {
      for (const t of await this.chat.history()) for (const line of pastTurnLines(t)) this.ctx.out(line);
      this.agent = view.activeAgent;
      if (view.status !== 'idle') this.watch();
    }
    return undefined;
  }

  private async onLine(line: string): Promise<'end' | 'quit' | undefined> {
    if (line === '') return undefined;
    const [command, ...args] = line.split(/\s+/);
    switch (command) {
      case '/help':
        this.say(COMMANDS_HELP);
        return undefined;
      case '/quit':
      case '/exit':
        return 'quit';
      case '/end': {
        this.say('ending the conversation once what you sent is answered…');
        this.say(endedLine(await this.chat.end()));
        return 'end';
      }
      case '/history':
        for (const t of await this.chat.history()) this.say(historyLine(t));
        return undefined;
      case '/status': {
        this.say(statusLine(await this.chat.status()));
        return undefined;
      }
      case '/approve':
      case '/reject':
        await this.decide(command === '/approve', args);
        return undefined;
    }
    if (command?.startsWith('/')) {
      this.say(`unknown command ${command}; /help lists them (a message starting with / needs a space first)`);
      return undefined;
    }
    this.send(line);
    return undefined;
  }

  /** Send a message; its answer shows as it forms and its reply when it comes, while more can be typed. */
  private send(message: string): void {
    this.inFlight += 1;
    this.watch();
    this.showDelegations();
    this.follow(message)
      .then(
        (reply) => this.answered(reply),
        (err: Error) => this.say(displayText(`✗ ${err.name}: ${err.message}`)),
      )
      .finally(() => {
        this.inFlight -= 1;
        this.prompt();
      });
  }

  /** The reply to `message`, its text written as it forms (`agent: …` above the prompt). */
  private async follow(message: string): Promise<{ reply: ConversationReply<unknown>; streamed: boolean }> {
    let streamed = false;
    for await (const item of this.chat.stream(message)) {
      if (item.kind === 'reply') return { reply: item.reply, streamed };
      // Text that only comes with the reply is printed with it, after the turn's handoffs.
      if (item.final && !this.text.open) continue;
      if (!this.text.open) this.clearPrompt();
      streamed = true;
      this.text.apply(item);
    }
    throw new Error('the answer stream ended without a reply');
  }

  private answered({ reply, streamed }: { reply: ConversationReply<unknown>; streamed: boolean }): void {
    this.text.end();
    for (const h of reply.handoffs) this.say(formatHandoff(h));
    if (!streamed && this.textNote && typeof reply.output === 'string' && reply.output !== '') {
      this.say(this.textNote, this.ctx.err);
      this.textNote = undefined;
    }
    if (!streamed) this.say(`${reply.agent}: ${shown(reply.output)}`);
    if (reply.handedBackTo) this.say(`  ↩ ${reply.agent} hands the conversation back to ${reply.handedBackTo}`);
    this.agent = reply.handedBackTo ?? reply.agent;
  }

  private clearPrompt(): void {
    if (this.rl && process.stdout.isTTY) {
      readline.clearLine(process.stdout, 0);
      readline.cursorTo(process.stdout, 0);
    }
  }

  private async decide(approve: boolean, args: string[]): Promise<void> {
    const id = args[0] && this.pending.includes(args[0]) ? args.shift() : undefined;
    const text = args.join(' ') || undefined;
    const options = { approver: this.approver, ...(approve ? { comment: text } : { reason: text }), ...cliSigner() };
    const record = approve
      ? await this.baton.approve(this.chat.id, id, options)
      : await this.baton.reject(this.chat.id, id, options);
    this.say(formatDecision(record));
  }

  /**
   * From the first message on, each delegation as it starts and ends (`⇢ lead delegates to
   * physics: …`, `⇠ physics answered lead`), from the conversation's history as it grows; those of
   * turns before this chat are not shown again.
   */
  private showDelegations(): void {
    if (this.events) return;
    // History times are the server's: a clock a little off this machine's only shows a delegation just before.
    const since = Date.now() - 1_000;
    const { workflow } = this.baton.client;
    const id = this.chat.id;
    // A new conversation starts with its first message: until then there is no history to read.
    const events = (async function* () {
      for (;;) {
        try {
          return yield* runEvents(workflow, id, undefined, { specialists: false });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          await delay(250);
        }
      }
    })();
    this.events = events;
    void (async () => {
      for await (const e of events) {
        if ((e.kind === 'delegation_started' || e.kind === 'delegation_ended') && Date.parse(e.at) >= since) {
          this.delegations.apply(e);
          this.say(formatDelegation(e));
        }
      }
    })().catch(() => undefined);
    // The prompt is the chat's live line: while a specialist works, it says who and for how long.
    if (process.stdout.isTTY)
      this.ticking = setInterval(
        () => !this.text.open && this.delegations.describe(Date.now()) && this.prompt(),
        250,
      ).unref();
  }

  /** While a message is answered, show approvals as they start waiting (the conversation query, twice a second). */
  private watch(): void {
    this.watching ??= setInterval(() => {
      this.chat.status().then(
        (v) => {
          this.pending = v.pendingApprovals.map((p) => p.handoffId);
          for (const p of v.pendingApprovals) {
            if (this.announced.has(p.handoffId)) continue;
            this.announced.add(p.handoffId);
            this.say(`${formatWaiting(p)}: /approve or /reject [reason]`);
          }
          if (this.inFlight === 0 && v.status === 'idle' && this.watching) {
            clearInterval(this.watching);
            this.watching = undefined;
          }
        },
        () => undefined,
      );
    }, 500);
  }

  private prompt(): void {
    const waiting = this.delegations.describe(Date.now());
    this.rl?.setPrompt(`${waiting ? `(${waiting}) ` : ''}${this.agent}> `);
    this.rl?.prompt(true);
  }

  /** A line above the prompt, which is drawn again below it with what was typed so far. */
  private say(text: string, out: Print = this.ctx.out): void {
    this.text.end();
    if (this.rl && process.stdout.isTTY) {
      readline.clearLine(process.stdout, 0);
      readline.cursorTo(process.stdout, 0);
    }
    out(text);
    if (this.rl && process.stdout.isTTY) this.prompt();
  }
}
