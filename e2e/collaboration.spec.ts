import { expect, test } from './fixtures';
import {
  RESULT_TIMEOUT,
  card,
  composer,
  createTeam,
  markDocument,
  member,
  openTeam,
  recordDialogs,
  sendRequest,
  stateEntry,
  statePanel,
  teamState,
} from './support/team-flows';

// Each test creates its own account and runs several agent turns through the real scheduler; on a busy two-core
// machine that needs more than the default 30 s per test, while every single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });

const RESEARCH_AND_REVIEW = [
  { name: 'Research', description: 'Gathers quotes' },
  { name: 'Review', description: 'Checks the numbers' },
];

const call = (tool: string, args: Record<string, unknown>) => `/call ${tool} ${JSON.stringify(args)}`;
/**
 * Research and Review, with Review scripted by its owner's instructions: the scripted model never obeys
 * directives inside a peer's request (docs/decisions/012-directive-trust.md), so that is how a test decides what
 * the member a peer asks will do.
 */
const reviewScripted = (instructions: string) => [RESEARCH_AND_REVIEW[0]!, { ...RESEARCH_AND_REVIEW[1]!, instructions }];

test('a handoff appears as "Research → @Review" and its result returns to Research', async ({ page, api }) => {
  const team = await createTeam(api, 'Cost crew', reviewScripted('/reply Reviewed'));
  await openTeam(page, team.id);
  const sameDocument = await markDocument(page);

  const rootId = await sendRequest(
    api,
    team,
    'Research',
    call('send_member', { member: 'Review', text: 'Please check the numbers', request_id: 'r1' }),
  );

  // The requester's own turn ends at once: send_member queues and returns.
  const root = card(page, 'You → @Research');
  await expect(root.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(root).toContainText('Research: done');
  await expect(root).toContainText('[send_member]');

  // The peer request, attributed to the member that sent it, finishes and its result goes back to Research.
  const handoff = card(page, 'Research → @Review');
  await expect(handoff.getByText('Reviewed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(handoff.getByText('Completed', { exact: true })).toBeVisible();
  await expect(handoff.getByText('Returned to Research', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  // Exactly one receipt, shown as the reply that reached Research's conversation.
  const receipt = card(page, 'Result → @Research');
  await expect(receipt).toHaveCount(1);
  await expect(receipt).toContainText('Received completed result from Review: Reviewed');
  await expect(receipt.getByText('Completed', { exact: true })).toBeVisible();
  await expect(page.getByRole('article', { name: /→/ })).toHaveCount(3);

  // The handoff links back to the request it came from.
  const followUp = handoff.getByRole('link', { name: /^\/call send_member/ });
  await expect(followUp).toHaveAttribute('href', `#job-${rootId}`);
  await followUp.click();
  await expect(root).toBeFocused();

  // Everything above arrived live.
  expect(await sameDocument()).toBe(true);
});

test('a returned result waits as "Reply to Research: queued" while Research waits for input', async ({ page, api }) => {
  // Review asks the person a question on every request, so the test decides when the handoff finishes.
  const team = await createTeam(api, 'Busy crew', reviewScripted('/ask Which currency?'));
  await openTeam(page, team.id);

  await sendRequest(api, team, 'Research', call('send_member', { member: 'Review', text: 'Check the currency', request_id: 'r1' }));
  const handoff = card(page, 'Research → @Review');
  await expect(handoff.getByText('Which currency?', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  // Meanwhile Research asks the person too; that request holds Research's conversation.
  await sendRequest(api, team, 'Research', '/ask Which supplier comes first?');
  const asking = card(page, 'You → @Research').filter({ hasText: 'Which supplier comes first?' });
  await expect(asking.getByText('Needs input', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  // The handoff finishes; its result has to queue behind Research's unanswered question.
  await handoff.getByRole('textbox', { name: 'Your answer' }).fill('Euros');
  await handoff.getByRole('button', { name: 'Send answer' }).click();
  await expect(handoff).toContainText('Clarification accepted: Euros.', { timeout: RESULT_TIMEOUT });
  await expect(handoff.getByText('Reply to Research: queued', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  const receipt = card(page, 'Result → @Research');
  await expect(receipt.getByText('Queued', { exact: true })).toBeVisible();

  await asking.getByRole('textbox', { name: 'Your answer' }).fill('Acme');
  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect(asking).toContainText('Clarification accepted: Acme.', { timeout: RESULT_TIMEOUT });
  await expect(handoff.getByText('Returned to Research', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(receipt).toContainText('Received completed result from Review: Clarification accepted: Euros.');
  await expect(receipt.getByText('Completed', { exact: true })).toBeVisible();
});

test('the Team state panel updates live with the latest editor, without disturbing a draft', async ({ page, api }) => {
  const team = await createTeam(api, 'State crew', RESEARCH_AND_REVIEW);
  await openTeam(page, team.id);
  const panel = statePanel(page);
  await expect(panel).toContainText('No shared state yet');
  const sameDocument = await markDocument(page);
  await composer(page).fill('A draft I have not sent');

  await sendRequest(
    api,
    team,
    'Research',
    call('publish_team_state', { request_id: 'p1', kind: 'plan', title: 'Cost review', content: 'Research gathers quotes' }),
  );
  const entry = stateEntry(page, 'Cost review');
  await expect(entry.getByText('Research gathers quotes', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(panel.getByRole('region', { name: 'Plans' })).toContainText('Cost review');
  await expect(entry.getByText('Plan', { exact: true })).toBeVisible();
  await expect(entry.getByText('rev 1', { exact: true })).toBeVisible();
  await expect(entry.getByText('By Research', { exact: true })).toBeVisible();
  await expect(entry.getByText(/^Edited by/)).toHaveCount(0);

  const published = await teamState(api, team.id);
  expect(published.entries).toHaveLength(1);
  const entryId = published.entries[0]!.id;

  await sendRequest(
    api,
    team,
    'Review',
    call('update_team_state', {
      entry_id: entryId,
      expected_revision: 1,
      title: 'Cost review',
      content: 'Include operating costs',
      status: 'active',
    }),
  );
  await expect(entry.getByText('Include operating costs', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(entry.getByText('Edited by Review', { exact: true })).toBeVisible();
  await expect(entry.getByText('By Research', { exact: true })).toBeVisible();
  await expect(entry.getByText('rev 2', { exact: true })).toBeVisible();
  await expect(entry).not.toContainText('Research gathers quotes');
  await expect(entry.getByRole('link', { name: 'Source conversation of “Cost review”' })).toHaveAttribute(
    'href',
    `/conversations/${member(team, 'Review').conversationId}`,
  );
  await expect(panel.getByRole('article')).toHaveCount(1);

  expect(await sameDocument()).toBe(true);
  await expect(composer(page)).toHaveValue('A draft I have not sent');
});

const INJECTION = '<img src=x onerror=alert(1)>';

test('untrusted text in requests, results and state renders as text', async ({ page, api }) => {
  const dialogs = recordDialogs(page);
  // Review's owner makes it answer with the injection text; Research is asked to pass it on too.
  const team = await createTeam(api, 'Untrusted crew', reviewScripted(`/reply ${INJECTION}`));
  await openTeam(page, team.id);

  // One request makes Research publish a state entry, hand the text to Review, and answer with it.
  await sendRequest(
    api,
    team,
    'Research',
    [
      call('publish_team_state', { request_id: 'x1', kind: 'finding', title: `Quote ${INJECTION}`, content: INJECTION }),
      call('send_member', { member: 'Review', text: `Check ${INJECTION}`, request_id: 'x2' }),
      `/reply ${INJECTION}`,
    ].join('\n'),
  );

  const root = card(page, 'You → @Research');
  await expect(root.getByText(INJECTION, { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT }); // its result
  await expect(root).toContainText(`"content":"${INJECTION}"`); // its request text

  const handoff = card(page, 'Research → @Review');
  await expect(handoff.getByText(`Check ${INJECTION}`, { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(handoff.getByText(INJECTION, { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  const receipt = card(page, 'Result → @Research');
  await expect(receipt).toContainText(`Received completed result from Review: ${INJECTION}`, { timeout: RESULT_TIMEOUT });
  await expect(receipt.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  const entry = stateEntry(page, `Quote ${INJECTION}`);
  await expect(entry.getByText(INJECTION, { exact: true })).toBeVisible();

  // Nothing was parsed as markup: the app itself renders no images, so any img came from the text.
  await expect(page.locator('img')).toHaveCount(0);
  expect(dialogs).toEqual([]);
});
