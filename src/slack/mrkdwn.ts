/**
 * The one escaping helper for text we post to Slack. Slack's mrkdwn treats `&`, `<` and `>` as
 * control characters: `<!channel>`, `<!here>`, `<@U123>` and `<https://…|label>` are mentions and
 * links. Everything that did not come from our own templates (event fields, platform messages,
 * reasons people typed, ids, rule names) goes through `escapeMrkdwn` before it reaches a block or
 * a fallback `text`, so that nobody who can log an event or type a reason can ping a channel or
 * plant a link.
 */

/** Escapes `&`, `<` and `>` (in that order, so an escape is never escaped twice into meaning). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code for any input: escaped, on one line, without a backtick that would end the span. */
export function inlineCode(text: string): string {
  return `\`${escapeMrkdwn(text.replace(/`/g, "'").replace(/[\r\n]+/g, ' '))}\``;
}

/**
 * For text that may mix our escaped templates with raw input (fallback `text`, a problem
 * message): escapes what is not escaped yet, leaving `&amp;`, `&lt;` and `&gt;` as they are,
 * so that nothing in it can become a mention or a link and nothing is escaped twice.
 */
export function neutralizeMrkdwn(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
