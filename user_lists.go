package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Limits of alert words: the reference's length, and a bound of ours on
// how many one user keeps, since every delivery in the organization reads
// them.
const (
	MaxAlertWordLength = 100
	MaxAlertWords      = 1000
)

// Errors of muting users, with the reference's texts.
var (
	ErrCannotMuteSelf = errorf("Cannot mute self")
	ErrAlreadyMuted   = errorf("User already muted")
	ErrNotMuted       = errorf("User is not muted")
)

// AlertWords returns the actor's alert words (GET
// /users/me/alert_words), in the order they were added. Any user may call
// it.
//
// Errors: those of the actor check.
func (s *Service) AlertWords(ctx context.Context, actor Actor) ([]string, error) {
	var out []string
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, realm, err := s.admit(tx, actor, OpAlertWords)
		if err != nil {
			return err
		}
		out, err = userAlertWords(tx, realm.ID, u.ID)
		return err
	})
	return out, err
}

func userAlertWords(tx storage.Tx, realmID, userID int64) ([]string, error) {
	all, err := tx.RealmAlertWords(realmID)
	if err != nil {
		return nil, err
	}
	if words := all[userID]; words != nil {
		return words, nil
	}
	return []string{}, nil
}

// AddAlertWords adds alert words for the actor (POST
// /users/me/alert_words): each is trimmed, empty ones and ones already
// there (without regard to case) are skipped. It returns all of them and
// sends the actor an alert_words event. Any user may call it.
//
// Errors: "alert_words[{i}] is too long (limit: 100 characters)";
// "You can have at most 1000 alert words."; those of the actor check.
func (s *Service) AddAlertWords(ctx context.Context, actor Actor, words []string) ([]string, error) {
	return s.changeAlertWords(ctx, actor, func(current []string) ([]string, error) {
		for i, w := range words {
			w = strings.TrimSpace(w)
			if utf8.RuneCountInString(w) > MaxAlertWordLength {
				return nil, errorf("alert_words[%d] is too long (limit: %d characters)", i, MaxAlertWordLength)
			}
			if w != "" && !slices.ContainsFunc(current, func(c string) bool { return strings.EqualFold(c, w) }) {
				current = append(current, w)
			}
		}
		if len(current) > MaxAlertWords {
			return nil, errorf("You can have at most %d alert words.", MaxAlertWords)
		}
		return current, nil
	})
}

// RemoveAlertWords removes alert words of the actor (DELETE
// /users/me/alert_words), compared without regard to case; words that are
// not there are skipped. It returns the remaining ones and sends the actor
// an alert_words event. Any user may call it.
//
// Errors: those of the actor check.
func (s *Service) RemoveAlertWords(ctx context.Context, actor Actor, words []string) ([]string, error) {
	return s.changeAlertWords(ctx, actor, func(current []string) ([]string, error) {
		return slices.DeleteFunc(current, func(c string) bool {
			return slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(strings.TrimSpace(w), c) })
		}), nil
	})
}

func (s *Service) changeAlertWords(ctx context.Context, actor Actor, change func([]string) ([]string, error)) ([]string, error) {
	var out []string
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpAlertWords)
		if err != nil {
			return err
		}
		current, err := userAlertWords(tx, realm.ID, u.ID)
		if err != nil {
			return err
		}
		next, err := change(slices.Clone(current))
		if err != nil {
			return err
		}
		out = next
		if slices.Equal(next, current) {
			return nil
		}
		if err := tx.SetAlertWords(realm.ID, u.ID, next); err != nil {
			return err
		}
		emit(Event{RealmID: realm.ID, UserIDs: []int64{u.ID}, Payload: map[string]any{"type": "alert_words", "alert_words": next}})
		return nil
	})
	return out, err
}

// alertWordsMatcher finds which users' alert words a message contains.
// Its words are lowercased once, when it is made, and a message's content
// once per message (fold), not once per recipient.
type alertWordsMatcher map[int64][]string

// newAlertWordsMatcher makes a matcher of the users' words.
func newAlertWordsMatcher(words map[int64][]string) alertWordsMatcher {
	a := make(alertWordsMatcher, len(words))
	for id, list := range words {
		lower := make([]string, len(list))
		for i, w := range list {
			lower[i] = strings.ToLower(w)
		}
		a[id] = lower
	}
	return a
}

// fold is content as matches takes it; "" when nobody has alert words.
func (a alertWordsMatcher) fold(content string) string {
	if len(a) == 0 {
		return ""
	}
	return strings.ToLower(content)
}

// matches reports whether folded content holds one of the user's alert
// words as a whole word, without regard to case, as the reference matches
// them.
func (a alertWordsMatcher) matches(userID int64, folded string) bool {
	for _, w := range a[userID] {
		if containsWord(folded, w) {
			return true
		}
	}
	return false
}

// containsWord reports whether word occurs in s between non-word
// characters (or the ends of s).
func containsWord(s, word string) bool {
	for from := 0; from <= len(s)-len(word); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(word)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(s) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		from = start + size
	}
	return false
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// MutedUserView is a muted user as muted_users lists it.
type MutedUserView struct {
	ID        int64 `json:"id"`
	Timestamp int64 `json:"timestamp"`
}

// MutedUsers returns whom the actor muted. Any user may call it.
//
// Errors: those of the actor check.
func (s *Service) MutedUsers(ctx context.Context, actor Actor) ([]MutedUserView, error) {
	var out []MutedUserView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpMuteUser)
		if err != nil {
			return err
		}
		out, err = mutedUserViews(tx, u.ID)
		return err
	})
	return out, err
}

func mutedUserViews(tx storage.Tx, userID int64) ([]MutedUserView, error) {
	muted, err := tx.MutedUsers(userID)
	if err != nil {
		return nil, err
	}
	out := make([]MutedUserView, len(muted))
	for i, m := range muted {
		out[i] = MutedUserView{ID: m.MutedUserID, Timestamp: m.DateMuted.Unix()}
	}
	return out, nil
}

// MuteUser mutes a user of the actor's organization for the actor (POST
// /users/me/muted_users/{id}): the user's messages then arrive read, and
// clients hide them. The actor gets a muted_users event with the whole
// list. Any user may call it.
//
// Errors: ErrCannotMuteSelf; ErrNoSuchUser; ErrAlreadyMuted; those of the
// actor check.
func (s *Service) MuteUser(ctx context.Context, actor Actor, target int64) error {
	return s.changeMuted(ctx, actor, target, func(tx storage.Tx, u *storage.UserRecord) error {
		if target == u.ID {
			return ErrCannotMuteSelf
		}
		if _, err := targetUser(tx, u.RealmID, target); err != nil {
			return err
		}
		err := tx.MuteUser(storage.MutedUser{UserID: u.ID, MutedUserID: target, DateMuted: s.now()})
		if errors.Is(err, storage.ErrExists) {
			return ErrAlreadyMuted
		}
		return err
	})
}

// UnmuteUser unmutes a user for the actor (DELETE
// /users/me/muted_users/{id}), with a muted_users event. Any user may call
// it.
//
// Errors: ErrNoSuchUser; ErrNotMuted; those of the actor check.
func (s *Service) UnmuteUser(ctx context.Context, actor Actor, target int64) error {
	return s.changeMuted(ctx, actor, target, func(tx storage.Tx, u *storage.UserRecord) error {
		if _, err := targetUser(tx, u.RealmID, target); err != nil && target != u.ID {
			return err
		}
		err := tx.UnmuteUser(u.ID, target)
		if errors.Is(err, storage.ErrNotFound) {
			return ErrNotMuted
		}
		return err
	})
}

func (s *Service) changeMuted(ctx context.Context, actor Actor, target int64, change func(storage.Tx, *storage.UserRecord) error) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpMuteUser)
		if err != nil {
			return err
		}
		if err := change(tx, &u); err != nil {
			return err
		}
		list, err := mutedUserViews(tx, u.ID)
		if err != nil {
			return err
		}
		emit(Event{RealmID: realm.ID, UserIDs: []int64{u.ID}, Payload: map[string]any{"type": "muted_users", "muted_users": list}})
		return nil
	})
}
