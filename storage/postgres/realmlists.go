package postgres

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/teamchat/chat/storage"
)

// Every message reads four small lists of its organization: its user
// groups (mentions and permissions), its linkifiers (rendering), its alert
// words and who muted the sender (the recipients' flags). Each was a round
// trip of its own, a third of a small channel's send. The store keeps them
// with the version the organization's row carried (migration 28): a
// trigger gives the row a new version, from a sequence, in the transaction
// that changes any of the lists, whichever process or tool makes the
// change, as for a channel's subscribers (subscribers.go).
//
// A transaction learns its organizations' versions from the rows it reads
// with them (UserAndRealm, Realm, RealmByHost), and answers from the kept
// lists while it has written nothing: all its statements see one snapshot
// (REPEATABLE READ or SERIALIZABLE), so a list kept at the version that
// snapshot shows is the list it would read, and a list read there is the
// list of that version. A transaction that has written may have changed a
// list, and so the version, itself: it reads the lists and keeps none.
// Under SERIALIZABLE, reading the organization's row stands for reading the
// lists, since a concurrent change to them writes that row.

// maxListedRealms bounds the organizations whose lists are kept.
const maxListedRealms = 1024

// maxListedWeight bounds what the kept lists hold, counted in entries
// (group members and subgroups, linkifiers, alert words, muters); lists
// that would go over it empty the cache first, and an organization's that
// alone would are not kept.
const maxListedWeight = 1 << 20

// realmLists is the store's cache of organizations' lists.
type realmLists struct {
	mu     sync.Mutex
	realms map[int64]*realmListSet
	weight int
}

// listKind names one of an organization's lists that are kept whole.
type listKind int

const (
	listGroups     listKind = iota // []storage.UserGroup
	listLinkifiers                 // []storage.LinkifierRecord
	listAlertWords                 // map[int64][]string
	listKinds
)

// realmListSet is one organization's lists at one version; a nil entry
// has not been read at that version.
type realmListSet struct {
	version int64
	lists   [listKinds]any
	muters  map[int64][]int64 // by muted user
	weight  int
}

// get runs pick on the organization's lists at the version, if kept, with
// the cache locked, and returns what pick returns.
func (c *realmLists) get(realmID, version int64, pick func(*realmListSet) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.realms[realmID]
	return set != nil && set.version == version && pick(set)
}

// keep runs fill on the organization's lists at the version, in place of
// any at another version; fill stores one list, of weight entries, unless
// another transaction kept it first (it then returns false).
func (c *realmLists) keep(realmID, version int64, weight int, fill func(*realmListSet) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.realms[realmID]
	if set != nil && set.version != version {
		c.weight -= set.weight
		delete(c.realms, realmID)
		set = nil
	}
	if set == nil {
		if weight > maxListedWeight {
			return
		}
		if c.realms == nil || len(c.realms) >= maxListedRealms {
			c.realms, c.weight = make(map[int64]*realmListSet), 0
		}
		set = &realmListSet{version: version}
		c.realms[realmID] = set
	}
	if c.weight+weight > maxListedWeight {
		// Start over, with this organization's lists only.
		c.realms, c.weight = map[int64]*realmListSet{realmID: set}, set.weight
		if set.weight+weight > maxListedWeight {
			delete(c.realms, realmID)
			c.weight = 0
			return
		}
	}
	if fill(set) {
		set.weight += weight
		c.weight += weight
	}
}

// noteRealm records the version of an organization's lists that the
// transaction's snapshot shows, and the organization of a user read with
// it (userID 0: none).
func (t *tx) noteRealm(realmID, version, userID int64) {
	if t.realmVersions == nil {
		t.realmVersions = make(map[int64]int64, 1)
	}
	t.realmVersions[realmID] = version
	if userID != 0 {
		if t.userRealms == nil {
			t.userRealms = make(map[int64]int64, 1)
		}
		t.userRealms[userID] = realmID
	}
}

// listsVersion returns the version of the organization's lists that the
// kept lists may answer for in this transaction: the one it read, while
// it has written nothing.
func (t *tx) listsVersion(realmID int64) (int64, bool) {
	if t.wrote {
		return 0, false
	}
	v, ok := t.realmVersions[realmID]
	return v, ok
}

// Writable reports whether the transaction may write (TxState.Writable);
// every write asks first, so it also marks the transaction as having
// written, after which it no longer answers from the kept lists.
func (t *tx) Writable() error {
	t.wrote = true
	return t.TxState.Writable()
}

// statement marks the transaction as having written when sql is not a
// plain read: the writes that run through query and one (UPDATE ...
// RETURNING and the like) do not all ask Writable first.
func (t *tx) statement(sql string) {
	if !strings.HasPrefix(sql, "SELECT ") {
		t.wrote = true
	}
}

// UserGroups returns the realm's user groups by ID, from the kept lists
// when they have the version this transaction sees.
func (t *tx) UserGroups(realmID int64) ([]storage.UserGroup, error) {
	return keptList(t, realmID, listGroups, t.readUserGroups, cloneGroups, func(gs []storage.UserGroup) int {
		n := len(gs)
		for _, g := range gs {
			n += len(g.Members) + len(g.Subgroups)
		}
		return n
	})
}

// Linkifiers returns the realm's linkifiers by order, then ID, from the
// kept lists when they have the version this transaction sees.
func (t *tx) Linkifiers(realmID int64) ([]storage.LinkifierRecord, error) {
	return keptList(t, realmID, listLinkifiers, t.readLinkifiers, cloneLinkifiers,
		func(ls []storage.LinkifierRecord) int { return len(ls) })
}

// RealmAlertWords returns the alert words of the realm's users, from the
// kept lists when they have the version this transaction sees.
func (t *tx) RealmAlertWords(realmID int64) (map[int64][]string, error) {
	return keptList(t, realmID, listAlertWords, t.readRealmAlertWords, cloneAlertWords, func(words map[int64][]string) int {
		n := 0
		for _, ws := range words {
			n += len(ws)
		}
		return n
	})
}

// keptList answers one of the realm's lists (of type T, as its kind says)
// from the kept lists when this transaction may, else reads it and, when
// the transaction knows the version it read, keeps a copy. weight counts
// a list's entries.
func keptList[T any](t *tx, realmID int64, kind listKind, read func(int64) (T, error), clone func(T) T,
	weight func(T) int) (T, error) {
	version, ok := t.listsVersion(realmID)
	var out T
	if ok && t.realmLists.get(realmID, version, func(s *realmListSet) bool {
		kept, found := s.lists[kind].(T)
		if found {
			out = clone(kept)
		}
		return found
	}) {
		return out, nil
	}
	out, err := read(realmID)
	if err == nil && ok {
		kept := clone(out)
		t.realmLists.keep(realmID, version, 1+weight(out), func(s *realmListSet) bool {
			if s.lists[kind] != nil {
				return false
			}
			s.lists[kind] = kept
			return true
		})
	}
	return out, err
}

// UsersMuting returns who muted the user, ascending, from the kept lists
// when this transaction read the user with their organization and the
// lists have the version it sees.
func (t *tx) UsersMuting(mutedUserID int64) ([]int64, error) {
	realmID, known := t.userRealms[mutedUserID]
	version, ok := t.listsVersion(realmID)
	ok = ok && known
	var ids []int64
	if ok && t.realmLists.get(realmID, version, func(s *realmListSet) bool {
		kept, found := s.muters[mutedUserID]
		ids = slices.Clone(kept)
		return found
	}) {
		return ids, nil
	}
	ids, err := t.readUsersMuting(mutedUserID)
	if err == nil && ok {
		kept := slices.Clone(ids)
		t.realmLists.keep(realmID, version, 1+len(ids), func(s *realmListSet) bool {
			if _, found := s.muters[mutedUserID]; found {
				return false
			}
			if s.muters == nil {
				s.muters = map[int64][]int64{}
			}
			s.muters[mutedUserID] = kept
			return true
		})
	}
	return ids, err
}

func cloneGroups(gs []storage.UserGroup) []storage.UserGroup {
	out := slices.Clone(gs)
	for i := range out {
		out[i].Members = slices.Clone(out[i].Members)
		out[i].Subgroups = slices.Clone(out[i].Subgroups)
		out[i].Settings = out[i].Settings.Clone()
	}
	return out
}

func cloneLinkifiers(ls []storage.LinkifierRecord) []storage.LinkifierRecord {
	out := slices.Clone(ls)
	for i := range out {
		out[i].AlternativeURLTemplates = slices.Clone(out[i].AlternativeURLTemplates)
		if p := out[i].ExampleInput; p != nil {
			s := *p
			out[i].ExampleInput = &s
		}
		if p := out[i].ReverseTemplate; p != nil {
			s := *p
			out[i].ReverseTemplate = &s
		}
	}
	return out
}

func cloneAlertWords(words map[int64][]string) map[int64][]string {
	out := maps.Clone(words)
	for id, ws := range out {
		out[id] = slices.Clone(ws)
	}
	return out
}
