package chat

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// ChannelFolderView is a folder as clients see it.
type ChannelFolderView struct {
	ID                  int64  `json:"id"`
	Name                string `json:"name"`
	Order               int64  `json:"order"`
	Description         string `json:"description"`
	RenderedDescription string `json:"rendered_description"`
	CreatorID           *int64 `json:"creator_id"`
	DateCreated         *int64 `json:"date_created"`
	IsArchived          bool   `json:"is_archived"`
}

func viewFolder(f *storage.ChannelFolder) ChannelFolderView {
	return ChannelFolderView{ID: f.ID, Name: f.Name, Order: f.Order, Description: f.Description,
		RenderedDescription: f.RenderedDescription, CreatorID: nonZero(f.CreatorID),
		DateCreated: ptrTo(f.DateCreated.Unix()), IsArchived: f.IsArchived}
}

// ErrFolderNotEmpty answers archiving a folder that still has channels.
var ErrFolderNotEmpty = &Error{Code: CodeBadRequest, Msg: "You need to remove all the channels from this folder to archive it."}

// checkFolderName strips and checks a folder name; exclude is the folder
// being renamed (its own name still counts, as in the reference server).
func checkFolderName(tx storage.Tx, realmID int64, name string) (string, error) {
	if utf8.RuneCountInString(name) > MaxFolderNameLength {
		return "", errorf("name is too long (limit: %d characters)", MaxFolderNameLength)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errorf("Channel folder name can't be empty.")
	}
	if pos := badCharacter(name); pos > 0 {
		return "", errorf("Invalid character in channel folder name, at position %d.", pos)
	}
	folders, err := tx.ChannelFolders(realmID)
	if err != nil {
		return "", err
	}
	key := storage.ChannelNameKey(name)
	for _, f := range folders {
		if storage.ChannelNameKey(f.Name) == key {
			return "", errorf("Channel folder '%s' already exists", name)
		}
	}
	return name, nil
}

func checkFolderDescription(d string) error {
	if utf8.RuneCountInString(d) > MaxFolderDescriptionLength {
		return errorf("description is too long (limit: %d characters)", MaxFolderDescriptionLength)
	}
	return nil
}

// activeUserEvent emits an event to every active user of the realm.
func (s *Service) activeUserEvent(_ storage.Tx, emit func(Event), realmID int64, payload map[string]any) error {
	emit(Event{RealmID: realmID, AllUsers: true, Payload: payload})
	return nil
}

// CreateChannelFolder creates a folder and returns its ID. Administrators
// only. Errors: ErrMustBeAdmin, name errors ("Channel folder name can't be
// empty.", "Channel folder 'x' already exists", bad characters, length),
// "description is too long ...".
func (s *Service) CreateChannelFolder(ctx context.Context, actor Actor, name, description string) (int64, error) {
	var id int64
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpCreateChannelFolder)
		if err != nil {
			return err
		}
		if name, err = checkFolderName(tx, realm.ID, name); err != nil {
			return err
		}
		if err := checkFolderDescription(description); err != nil {
			return err
		}
		rendered, err := s.renderFolderDescription(tx, actor, &realm, description)
		if err != nil {
			return err
		}
		f := storage.ChannelFolder{RealmID: realm.ID, Name: name, Description: description,
			RenderedDescription: rendered, CreatorID: u.ID, DateCreated: s.now()}
		if err := tx.CreateChannelFolder(&f); err != nil {
			return err
		}
		f.Order = f.ID
		if err := tx.UpdateChannelFolder(f); err != nil {
			return err
		}
		id = f.ID
		return s.activeUserEvent(tx, emit, realm.ID, map[string]any{
			"type": "channel_folder", "op": "add", "channel_folder": viewFolder(&f)})
	})
	return id, err
}

// ChannelFolders returns the organization's folders sorted by order,
// archived ones only when includeArchived. Any active user may call it.
func (s *Service) ChannelFolders(ctx context.Context, actor Actor, includeArchived bool) ([]ChannelFolderView, error) {
	out := []ChannelFolderView{}
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		folders, err := tx.ChannelFolders(realm.ID)
		if err != nil {
			return err
		}
		for i := range folders {
			if includeArchived || !folders[i].IsArchived {
				out = append(out, viewFolder(&folders[i]))
			}
		}
		return nil
	})
	return out, err
}

// FolderUpdate holds the changes of UpdateChannelFolder; nil fields stay.
type FolderUpdate struct {
	Name        *string
	Description *string
	IsArchived  *bool
}

// UpdateChannelFolder renames, re-describes, archives or unarchives a
// folder. Administrators only; values equal to the current ones are
// ignored. Errors: ErrMustBeAdmin, ErrInvalidFolderID, the name and
// description errors of CreateChannelFolder, ErrFolderNotEmpty.
func (s *Service) UpdateChannelFolder(ctx context.Context, actor Actor, id int64, req FolderUpdate) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpUpdateChannelFolder)
		if err != nil {
			return err
		}
		f, err := tx.ChannelFolder(id)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && f.RealmID != realm.ID) {
			return ErrInvalidFolderID
		}
		if err != nil {
			return err
		}
		var events []map[string]any
		if req.Name != nil && *req.Name != f.Name {
			name, err := checkFolderName(tx, realm.ID, *req.Name)
			if err != nil {
				return err
			}
			f.Name = name
			events = append(events, map[string]any{"name": name})
		}
		if req.Description != nil && *req.Description != f.Description {
			if err := checkFolderDescription(*req.Description); err != nil {
				return err
			}
			rendered, err := s.renderFolderDescription(tx, actor, &realm, *req.Description)
			if err != nil {
				return err
			}
			f.Description, f.RenderedDescription = *req.Description, rendered
			events = append(events, map[string]any{"description": f.Description, "rendered_description": f.RenderedDescription})
		}
		if req.IsArchived != nil && *req.IsArchived != f.IsArchived {
			if *req.IsArchived {
				channels, err := tx.Channels(realm.ID)
				if err != nil {
					return err
				}
				for _, c := range channels {
					if c.FolderID == f.ID && !c.IsArchived {
						return ErrFolderNotEmpty
					}
				}
			}
			f.IsArchived = *req.IsArchived
			events = append(events, map[string]any{"is_archived": f.IsArchived})
		}
		if len(events) == 0 {
			return nil
		}
		if err := tx.UpdateChannelFolder(f); err != nil {
			return err
		}
		for _, data := range events {
			if err := s.activeUserEvent(tx, emit, realm.ID, map[string]any{
				"type": "channel_folder", "op": "update", "channel_folder_id": f.ID, "data": data}); err != nil {
				return err
			}
		}
		return nil
	})
}

// renderFolderDescription renders a channel folder's description for the
// actor who writes it (renderDescription), reading the actor's channels
// only when it may link one.
func (s *Service) renderFolderDescription(tx storage.Tx, actor Actor, realm *storage.Realm, text string) (string, error) {
	var cc *channelContext
	if strings.Contains(text, "#**") {
		var err error
		if cc, err = s.channelContext(tx, actor); err != nil {
			return "", err
		}
	}
	return s.renderDescription(tx, realm, text, cc)
}
