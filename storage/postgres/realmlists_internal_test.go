package postgres

import (
	"testing"

	"github.com/teamchat/chat/storage"
)

// TestRealmListsBounds: the cache holds at most maxListedRealms
// organizations and maxListedWeight entries; a new version replaces an
// organization's lists, a list kept twice counts once, lists past the
// weight start the cache over, and an organization's lists larger than
// the bound are not kept.
func TestRealmListsBounds(t *testing.T) {
	var c realmLists
	words := func(n int) func(*realmListSet) bool {
		return func(s *realmListSet) bool {
			if s.lists[listAlertWords] != nil {
				return false
			}
			s.lists[listAlertWords] = map[int64][]string{1: make([]string, n)}
			return true
		}
	}
	has := func(realmID, version int64) bool {
		return c.get(realmID, version, func(s *realmListSet) bool { return s.lists[listAlertWords] != nil })
	}
	for id := range int64(maxListedRealms) {
		c.keep(id, 1, 2, words(1))
	}
	if len(c.realms) != maxListedRealms || c.weight != 2*maxListedRealms {
		t.Fatalf("after %d organizations: %d kept, weight %d", maxListedRealms, len(c.realms), c.weight)
	}
	c.keep(5, 1, 2, words(1))
	if c.weight != 2*maxListedRealms {
		t.Errorf("a list kept twice: weight %d, want %d", c.weight, 2*maxListedRealms)
	}
	c.keep(5, 2, 3, words(2))
	if !has(5, 2) || has(5, 1) || len(c.realms) != maxListedRealms || c.weight != 2*maxListedRealms+1 {
		t.Errorf("a new version: kept %v, old kept %v, %d organizations, weight %d", has(5, 2), has(5, 1), len(c.realms), c.weight)
	}
	c.keep(maxListedRealms, 1, 2, words(1))
	if len(c.realms) != 1 || c.weight != 2 || !has(maxListedRealms, 1) {
		t.Errorf("one organization more: %d kept, weight %d; want the cache started over", len(c.realms), c.weight)
	}
	c.keep(7, 1, maxListedWeight-2, words(1))
	if len(c.realms) != 2 || c.weight != maxListedWeight {
		t.Errorf("lists that fill the rest: %d kept, weight %d; want them beside the first", len(c.realms), c.weight)
	}
	c.keep(8, 1, 2, words(1))
	if len(c.realms) != 1 || c.weight != 2 || !has(8, 1) {
		t.Errorf("past the weight: %d kept, weight %d; want the cache started over", len(c.realms), c.weight)
	}
	c.keep(8, 1, maxListedWeight, func(s *realmListSet) bool { s.lists[listLinkifiers] = []storage.LinkifierRecord{}; return true })
	if len(c.realms) != 0 || c.weight != 0 {
		t.Errorf("an organization's lists over the bound: %d kept, weight %d; want none", len(c.realms), c.weight)
	}
	c.keep(9, 1, maxListedWeight+1, words(1))
	if len(c.realms) != 0 || c.weight != 0 {
		t.Errorf("a list over the bound: %d kept, weight %d; want none", len(c.realms), c.weight)
	}
}

// TestRealmListsCopies: what the cache gives or keeps is a copy, so that
// a caller changing a list it got (as updates of groups do) changes no
// other caller's.
func TestRealmListsCopies(t *testing.T) {
	example := "#1"
	groups := []storage.UserGroup{{ID: 1, Members: []int64{1, 2}, Subgroups: []int64{3},
		Settings: storage.UserGroupSettings{CanJoinGroup: storage.GroupSetting{Members: []int64{4}}}}}
	linkifiers := []storage.LinkifierRecord{{Linkifier: storage.Linkifier{ExampleInput: &example, AlternativeURLTemplates: []string{"a"}}}}
	words := map[int64][]string{1: {"x"}}

	g := cloneGroups(groups)
	g[0].Members[0], g[0].Subgroups[0], g[0].Settings.CanJoinGroup.Members[0] = 9, 9, 9
	l := cloneLinkifiers(linkifiers)
	*l[0].ExampleInput, l[0].AlternativeURLTemplates[0] = "changed", "changed"
	w := cloneAlertWords(words)
	w[1][0] = "changed"
	w[2] = []string{"new"}
	if groups[0].Members[0] != 1 || groups[0].Subgroups[0] != 3 || groups[0].Settings.CanJoinGroup.Members[0] != 4 {
		t.Errorf("a copy's change reached the groups: %+v", groups[0])
	}
	if example != "#1" || linkifiers[0].AlternativeURLTemplates[0] != "a" {
		t.Errorf("a copy's change reached the linkifiers: %q, %v", example, linkifiers[0].AlternativeURLTemplates)
	}
	if len(words) != 1 || words[1][0] != "x" {
		t.Errorf("a copy's change reached the alert words: %v", words)
	}
}
