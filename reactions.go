package chat

import (
	"context"
	"errors"
	"slices"

	"github.com/teamchat/chat/storage"
)

// Reaction texts.
var (
	ErrReactionExists       = &Error{Code: CodeReactionAlreadyExists, Msg: "Reaction already exists."}
	ErrReactionDoesNotExist = &Error{Code: CodeReactionDoesNotExist, Msg: "Reaction doesn't exist."}
	ErrReactionNameOrCode   = errorf("At least one of the following arguments must be present: emoji_name, emoji_code")
)

// ReactionRequest names an emoji to react with or to take back. Code and
// Type are nil when not sent.
type ReactionRequest struct {
	Name string
	Code *string
	Type *string
}

// AddReaction adds the actor's emoji reaction to a message they may read
// (POST /messages/{id}/reactions). Without a code and type they are taken
// from the name. A reaction with the code and type that another user
// already made is a vote: it takes that reaction's name and skips the
// emoji checks, so deactivated custom emoji can still be voted for.
//
// Errors: ErrInvalidMessage; "Emoji '{name}' does not exist";
// ErrReactionExists; the emoji checks (ErrInvalidEmojiCode,
// ErrInvalidEmojiName, ErrInvalidEmojiType, ErrInvalidCustomEmoji,
// ErrInvalidCustomEmojiName, ErrCustomEmojiDeactivated); and those of
// the actor check.
func (s *Service) AddReaction(ctx context.Context, actor Actor, messageID int64, req ReactionRequest) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		rc, m, err := s.reactionContext(tx, actor, messageID)
		if err != nil {
			return err
		}
		r := storage.Reaction{MessageID: m.ID, UserID: rc.actor.ID, EmojiName: req.Name}
		if req.Code == nil || req.Type == nil {
			code, typ, err := emojiByName(tx, rc.realm.ID, req.Name)
			if err != nil {
				return err
			}
			r.EmojiCode, r.ReactionType = code, typ
		} else {
			r.EmojiCode, r.ReactionType = *req.Code, ReactionType(*req.Type)
		}
		existing, err := tx.Reactions([]int64{m.ID})
		if err != nil {
			return err
		}
		voted := false
		for _, x := range existing {
			if x.EmojiCode != r.EmojiCode || x.ReactionType != r.ReactionType {
				continue
			}
			if x.UserID == r.UserID {
				return ErrReactionExists
			}
			r.EmojiName, voted = x.EmojiName, true
		}
		if !voted {
			if err := checkEmoji(tx, rc.realm.ID, r.EmojiName, r.EmojiCode, r.ReactionType); err != nil {
				return err
			}
		}
		if err := tx.CreateReaction(r); errors.Is(err, storage.ErrExists) {
			return ErrReactionExists
		} else if err != nil {
			return err
		}
		s.emitReaction(emit, rc, &m, r, "add")
		return nil
	})
}

// RemoveReaction takes back the actor's reaction (DELETE
// /messages/{id}/reactions). Without a code, the code and type come from
// the name; with one, Type defaults to unicode_emoji.
//
// Errors: ErrReactionNameOrCode, ErrInvalidMessage, "Emoji '{name}' does
// not exist", ErrReactionDoesNotExist, and those of the actor check.
func (s *Service) RemoveReaction(ctx context.Context, actor Actor, messageID int64, req ReactionRequest) error {
	if req.Name == "" && req.Code == nil {
		return ErrReactionNameOrCode
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		rc, m, err := s.reactionContext(tx, actor, messageID)
		if err != nil {
			return err
		}
		r := storage.Reaction{MessageID: m.ID, UserID: rc.actor.ID, ReactionType: UnicodeEmoji}
		if req.Type != nil {
			r.ReactionType = ReactionType(*req.Type)
		}
		if req.Code != nil {
			r.EmojiCode = *req.Code
		} else {
			if r.EmojiCode, r.ReactionType, err = emojiByName(tx, rc.realm.ID, req.Name); err != nil {
				return err
			}
		}
		existing, err := tx.Reactions([]int64{m.ID})
		if err != nil {
			return err
		}
		i := slices.IndexFunc(existing, func(x storage.Reaction) bool {
			return x.UserID == r.UserID && x.EmojiCode == r.EmojiCode && x.ReactionType == r.ReactionType
		})
		if i < 0 {
			return ErrReactionDoesNotExist
		}
		if err := tx.DeleteReaction(existing[i]); err != nil {
			return err
		}
		s.emitReaction(emit, rc, &m, existing[i], "remove")
		return nil
	})
}

// reactionContext is what a reaction needs to know of the actor, and
// who received the message.
type reactionContext struct {
	actor storage.UserRecord
	realm Realm
	// readers are the users who received the message, ascending: the
	// reaction's event goes to them (and the actor).
	readers []int64
}

// reactionContext checks the actor and reads a message they may read. A
// message the actor received needs nothing more; the actor's groups and
// subscriptions, which decide access to a channel's history, are read only
// for a message they did not receive. Reactions are frequent small writes,
// and those reads cost more than the write itself.
//
// Errors: ErrInvalidMessage and those of the actor check.
func (s *Service) reactionContext(tx storage.Tx, actor Actor, messageID int64) (*reactionContext, storage.MessageRecord, error) {
	u, realm, err := s.actor(tx, actor)
	if err != nil {
		return nil, storage.MessageRecord{}, err
	}
	rc := &reactionContext{actor: u, realm: realm}
	m, err := tx.Message(messageID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && m.RealmID != realm.ID) {
		return nil, storage.MessageRecord{}, ErrInvalidMessage
	}
	if err != nil {
		return nil, storage.MessageRecord{}, err
	}
	// Who received the message answers both whether the actor did (no
	// need to read their row) and whom the event goes to.
	if rc.readers, err = storage.MessageReaders(tx, []int64{m.ID}); err != nil {
		return nil, storage.MessageRecord{}, err
	}
	if _, received := slices.BinarySearch(rc.readers, u.ID); received {
		return rc, m, nil
	}
	g, err := loadGroups(tx, realm.ID)
	if err != nil {
		return nil, storage.MessageRecord{}, err
	}
	subs, err := subscribedSet(tx, u.ID)
	if err != nil {
		return nil, storage.MessageRecord{}, err
	}
	if _, _, err := readableMessage(tx, &channelContext{actor: u, realm: realm, g: g, subs: subs}, m.ID); err != nil {
		return nil, storage.MessageRecord{}, err
	}
	return rc, m, nil
}

// emitReaction sends a reaction event to the users who received the
// message, and to the actor.
func (s *Service) emitReaction(emit func(Event), rc *reactionContext, m *storage.MessageRecord, r storage.Reaction, op string) {
	to := withUser(rc.readers, rc.actor.ID)
	emit(Event{RealmID: rc.realm.ID, UserIDs: to, Payload: map[string]any{
		"type": "reaction", "op": op, "user_id": r.UserID,
		"user": map[string]any{"user_id": rc.actor.ID, "email": apiEmail(&rc.actor, s.emailDomain(rc.realm)),
			"full_name": rc.actor.FullName},
		"message_id": m.ID, "emoji_name": r.EmojiName, "emoji_code": r.EmojiCode, "reaction_type": r.ReactionType,
	}})
}

// messageAudience returns the users who received the message, with extra
// (the acting user) added, sorted.
func messageAudience(tx storage.Tx, messageID, extra int64) ([]int64, error) {
	// Who, not their flags: on SQLite a list, not a row a recipient.
	out, err := storage.MessageReaders(tx, []int64{messageID})
	if err != nil {
		return nil, err
	}
	return withUser(out, extra), nil
}

// withUser returns the ascending IDs with id among them, in a new slice
// when it was not.
func withUser(ids []int64, id int64) []int64 {
	i, found := slices.BinarySearch(ids, id)
	if found {
		return ids
	}
	return slices.Insert(slices.Clip(ids), i, id)
}
