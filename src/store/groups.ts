// The repositories of groups (reference §4.7): each scoped by application like the others, so
// another application's group reads as a missing one.
import type { GroupDoc, GroupMemberDoc, GroupMessageDoc } from './documents.js';
import { ScopedRepo } from './scoped-repo.js';
import type { Store } from './store.js';

export interface GroupRepos {
  groups: ScopedRepo<GroupDoc>;
  members: ScopedRepo<GroupMemberDoc>;
  messages: ScopedRepo<GroupMessageDoc>;
}

export function groupRepos(store: Store): GroupRepos {
  return {
    groups: new ScopedRepo<GroupDoc>(store.collection<GroupDoc>('groups')),
    members: new ScopedRepo<GroupMemberDoc>(store.collection<GroupMemberDoc>('group_members')),
    messages: new ScopedRepo<GroupMessageDoc>(store.collection<GroupMessageDoc>('group_messages')),
  };
}

/** A group by its token alone, whatever its application: the streaming API's sockets name no application. */
export function groupByToken(store: Store, token: string): Promise<GroupDoc | null> {
  return store.collection<GroupDoc>('groups').findOne({ _id: token });
}
