/** The routes that take decisions from notifications: signed email links and Slack interactions. */
import { linkRoutes } from '../links/routes';
import type { ServiceApp, ServiceContext } from '../context';
import { notificationServiceProblems, type NotificationServiceOptions } from './options';
import { slackRoutes } from './slack';

/** Register the routes `options` configures; throws naming every problem of `options`. */
export function notificationRoutes(app: ServiceApp, ctx: ServiceContext, options: NotificationServiceOptions): void {
  const problems = notificationServiceProblems(options);
  if (problems.length > 0) throw new Error(`notifications: ${problems.join('; ')}`);
  if (options.linkSecret) linkRoutes(app, ctx, options.linkSecret);
  if (options.slack) slackRoutes(app, ctx, options.slack);
}

export type { NotificationServiceOptions, SlackInteractionOptions } from './options';
