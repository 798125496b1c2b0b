// The contract of the repositories of geonotes, share links, history batches, groups, their members
// and messages: the embedded engine always, MongoDB whenever MONGODB_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupDoc, GroupMemberDoc, ShareLinkDoc } from '../../src/store/documents.js';
import { DuplicateKeyError } from '../../src/store/duplicate-key.js';
import { newId } from '../../src/store/ids.js';
import { memberId } from '../../src/store/repos/index.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const ids = (docs: Array<{ _id: string }>) => docs.map((d) => d._id);
const group = (appId: string, over: Partial<GroupDoc> = {}): GroupDoc => ({
  _id: newId(), app_id: appId, title: 'g', description: '', visibility: 'open', publish_access: 'open', date_created: 1, ...over,
});
const member = (appId: string, groupToken: string, userId: string, at: number, membership: GroupMemberDoc['membership'] = 'publishing'): GroupMemberDoc => ({
  _id: memberId(groupToken, userId), app_id: appId, group_token: groupToken, user_id: userId, membership, date_joined: at,
});
const link = (appId: string, userId: string): ShareLinkDoc => ({
  _id: newId().slice(0, 7), app_id: appId, user_id: userId, description: '', share_with: '', status: 'active', created_at: 1,
});

function contract(makeHarness: () => Promise<EngineHarness>) {
  let h: EngineHarness;
  let store: Store;
  beforeAll(async () => {
    h = await makeHarness();
    store = await h.open();
  });
  afterAll(async () => {
    await h?.destroy();
  });

  it('geonotes: a user’s notes newest first, stamped when delivered', async () => {
    const A = newId();
    const note = (at: number) => ({ _id: newId(), app_id: A, user_id: 'u', trigger_id: newId(), place_id: newId(), text: 't', from: '[me]', date_created: at });
    const [old, recent] = [note(1), note(2)];
    await store.geonotes.insert(old);
    await store.geonotes.insert(recent);
    expect(ids(await store.geonotes.forUser(A, 'u'))).toEqual([recent._id, old._id]);
    await store.geonotes.markTriggered(A, old._id, 50);
    await store.geonotes.markTriggered(newId(), recent._id, 60);
    expect((await store.geonotes.forUser(A, 'u')).map((n) => n.date_triggered)).toEqual([undefined, 50]);
    await store.geonotes.removeForUser(A, 'u');
    expect(await store.geonotes.forUser(A, 'u')).toEqual([]);
  });

  it('share links: tokens are global and unique, found by token whatever the application', async () => {
    const A = newId();
    const l = link(A, 'u');
    await store.shareLinks.insert(l);
    expect(await store.shareLinks.insert({ ...link(newId(), 'v'), _id: l._id }).catch((e: unknown) => e)).toBeInstanceOf(DuplicateKeyError);
    expect(await store.shareLinks.get(newId(), l._id)).toBeNull();
    expect(ids(await store.shareLinks.byTokens([l._id, 'nope']))).toEqual([l._id]);
    await store.shareLinks.setStatus(A, l._id, 'expired');
    expect((await store.shareLinks.get(A, l._id))?.status).toBe('expired');
    await store.shareLinks.removeForUser(A, 'u');
    expect(await store.shareLinks.byTokens([l._id])).toEqual([]);
  });

  it('history batches: only the user’s own, marked deleted once', async () => {
    const A = newId();
    const b = { _id: newId(), app_id: A, user_id: 'u', point_ids: ['p1', 'p2'], created_at: 1 };
    await store.locationBatches.insert(b);
    expect(await store.locationBatches.get(A, 'other', b._id)).toBeNull();
    expect(await store.locationBatches.get(A, 'u', b._id)).toEqual(b);
    await store.locationBatches.markDeleted(A, b._id, 7);
    expect((await store.locationBatches.get(A, 'u', b._id))?.deleted_at).toBe(7);
  });

  it('groups: pages oldest first, an owner’s only, by token across applications', async () => {
    const A = newId();
    const g1 = group(A, { date_created: 2, owner_id: 'o' });
    const g2 = group(A, { date_created: 1 });
    await store.groups.insert(g1);
    await store.groups.insert(g2);
    expect(await store.groups.page(A, undefined, { offset: 0, limit: 10 })).toEqual({ items: [g2, g1], total: 2 });
    expect(await store.groups.page(A, 'o', { offset: 0, limit: 10 })).toEqual({ items: [g1], total: 1 });
    expect(await store.groups.byToken(g1._id)).toEqual(g1);
    expect(await store.groups.get(newId(), g1._id)).toBeNull();
    expect(ids(await store.groups.many(A, [g1._id, g2._id])).sort()).toEqual([g1._id, g2._id].sort());
    expect(await store.groups.update(A, g1._id, { set: { title: 'renamed' } })).toMatchObject({ title: 'renamed' });
    expect(await store.groups.remove(A, g2._id)).toBe(true);
  });

  it('group members: one per user, in join order, and the groups a user publishes to', async () => {
    const A = newId();
    const G = newId();
    expect(await store.groupMembers.lastJoinedAt(A, G)).toBeUndefined();
    await store.groupMembers.insert(member(A, G, 'u2', 20));
    await store.groupMembers.insert(member(A, G, 'u1', 10, 'subscribed'));
    expect(await store.groupMembers.insert(member(A, G, 'u1', 30)).catch((e: unknown) => e)).toBeInstanceOf(DuplicateKeyError);
    expect(await store.groupMembers.lastJoinedAt(A, G)).toBe(20);
    expect((await store.groupMembers.ofGroup(A, G, 10)).map((m) => m.user_id)).toEqual(['u1', 'u2']);
    expect((await store.groupMembers.ofGroup(A, G, 1)).map((m) => m.user_id)).toEqual(['u1']);
    expect(await store.groupMembers.publishingGroups(A, 'u1')).toEqual([]);
    await store.groupMembers.setMembership(A, G, 'u1', 'publishing');
    expect(await store.groupMembers.publishingGroups(A, 'u1')).toEqual([G]);
    await store.groupMembers.insert(member(A, newId(), 'u1', 40));
    const page = await store.groupMembers.pageForUser(A, 'u1', { offset: 1, limit: 5 });
    expect(page.total).toBe(2);
    expect(page.items.map((m) => m.date_joined)).toEqual([40]);
    expect(await store.groupMembers.remove(A, G, 'u2')).toBe(true);
    await store.groupMembers.removeForGroup(A, G);
    expect(await store.groupMembers.ofGroup(A, G, 10)).toEqual([]);
  });

  it('groups and members: changes are reported, for the streaming rights to be checked again', async () => {
    const A = newId();
    const written: string[] = [];
    store.writes.on(['groups', 'group_members'], (name) => written.push(name));
    const g = group(A);
    await store.groups.insert(g);
    await store.groupMembers.insert(member(A, g._id, 'u', 1, 'subscribed'));
    expect(written).toEqual([]);
    await store.groups.update(A, g._id, { set: { visibility: 'invite' } });
    await store.groupMembers.setMembership(A, g._id, 'u', 'publishing');
    await store.groupMembers.remove(A, g._id, 'u');
    await store.groupMembers.removeForUser(A, 'u');
    await store.groupMembers.removeForGroup(A, g._id);
    await store.groups.remove(A, g._id);
    await store.groups.removeForApp(A);
    await store.groupMembers.removeForApp(A);
    expect(written).toEqual(['groups', 'group_members', 'group_members', 'group_members', 'group_members', 'groups', 'groups', 'group_members']);
  });

  it('group messages: newest first, paged', async () => {
    const A = newId();
    const G = newId();
    const msg = (date: number, user_id?: string) => ({ _id: newId(), app_id: A, group_token: G, message: { n: date }, date, ...(user_id ? { user_id } : {}) });
    const ms = [msg(1, 'u'), msg(3), msg(2, 'u')];
    for (const m of ms) await store.groupMessages.insert(m);
    expect((await store.groupMessages.page(A, G, { offset: 0, limit: 2 })).items.map((m) => m.date)).toEqual([3, 2]);
    expect((await store.groupMessages.page(A, G, { offset: 2, limit: 2 })).total).toBe(3);
    await store.groupMessages.removeForUser(A, 'u');
    expect((await store.groupMessages.page(A, G, { offset: 0, limit: 5 })).items.map((m) => m.date)).toEqual([3]);
  });
}

describe('social repositories: embedded engine', () => {
  contract(() => embeddedHarness());
});

describe.skipIf(!process.env.MONGODB_URL)('social repositories: MongoDB engine', () => {
  contract(() => mongoHarness(process.env.MONGODB_URL as string));
});
