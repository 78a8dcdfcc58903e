package chat

import (
	"context"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// RealmEmojiView is a custom emoji as GET /realm/emoji and the register's
// realm_emoji block show it. SourceURL is the path of its image ("" for
// an emoji provisioned without one); StillURL, which the reference sets
// for animated images, is null: this server makes no still renderings.
type RealmEmojiView struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	SourceURL   string  `json:"source_url"`
	StillURL    *string `json:"still_url"`
	Deactivated bool    `json:"deactivated"`
	// AuthorID is null for emoji without a known author.
	AuthorID *int64 `json:"author_id"`
}

// RealmEmoji returns the organization's custom emoji by ID, deactivated
// ones included, as GET /realm/emoji does. Any user may call it.
//
// Errors: those of authentication only.
func (s *Service) RealmEmoji(ctx context.Context, actor Actor) (map[string]RealmEmojiView, error) {
	var out map[string]RealmEmojiView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.admit(tx, actor, OpRealmEmoji)
		if err != nil {
			return err
		}
		out, err = realmEmojiViews(tx, realm.ID)
		return err
	})
	return out, err
}

// realmEmojiViews returns the realm's custom emoji by ID, never nil.
func realmEmojiViews(tx storage.Tx, realmID int64) (map[string]RealmEmojiView, error) {
	list, err := tx.RealmEmojis(realmID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]RealmEmojiView, len(list))
	for _, e := range list {
		v := RealmEmojiView{ID: strconv.FormatInt(e.ID, 10), Name: e.Name, Deactivated: e.Deactivated}
		if e.FileName != "" {
			v.SourceURL = emojiSourceURL(realmID, e.FileName)
		}
		if e.AuthorID != 0 {
			v.AuthorID = &e.AuthorID
		}
		out[v.ID] = v
	}
	return out, nil
}
