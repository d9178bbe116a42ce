// The agent's Markdown as Slack's mrkdwn: what Slack would misread is escaped, the marks that
// differ are rewritten, code stays as written.
import { describe, expect, it } from 'vitest';
import { slackText } from '../../workers/channels/slack-answers.js';

describe('slackText', () => {
  it('escapes &, < and >, which Slack reads as links and mentions', () => {
    expect(slackText('a < b && c > d <@U123>')).toBe('a &lt; b &amp;&amp; c &gt; d &lt;@U123&gt;');
  });

  it('rewrites bold, strike, headings and links in Slack marks', () => {
    expect(slackText('**bold** and __also__ and ~~gone~~')).toBe('*bold* and *also* and ~gone~');
    expect(slackText('# Title\n## Part two ##\ntext')).toBe('*Title*\n*Part two*\ntext');
    expect(slackText('see [the docs](https://example.com/a?b=1)')).toBe('see <https://example.com/a?b=1|the docs>');
  });

  it('keeps quotes, and leaves code as written (only escaped)', () => {
    expect(slackText('> quoted\nplain')).toBe('> quoted\nplain');
    expect(slackText('use `**not bold**` and\n```\nif (a < b) **x**\n```')).toBe('use `**not bold**` and\n```\nif (a &lt; b) **x**\n```');
  });

  it('leaves plain text as it is', () => {
    expect(slackText('word0 word1 word2')).toBe('word0 word1 word2');
    expect(slackText('')).toBe('');
  });
});
