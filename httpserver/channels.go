package httpserver

import (
	"encoding/json"
	"net/http"

	"github.com/teamchat/chat"
)

// channelRoutes registers channels, subscriptions, user topics, channel
// folders, user groups and the realm's channel settings.
func (s *Server) channelRoutes() {
	s.handle("/users/me/subscriptions", map[string]endpoint{
		http.MethodGet:    {chat.OpSubscriptions, s.getSubscriptions},
		http.MethodPost:   {chat.OpSubscribe, s.subscribe},
		http.MethodDelete: {chat.OpUnsubscribe, s.unsubscribe},
	})
	s.handle("/users/me/subscriptions/properties", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateSubscriptionProperties, s.updateSubscriptionProperties},
	})
	s.handle("/users/me/subscriptions/muted_topics", map[string]endpoint{
		http.MethodPatch: {chat.OpMuteTopic, s.mutedTopics},
	})

	s.userChannelRoutes()
	s.handle("/user_topics", map[string]endpoint{
		http.MethodPost: {chat.OpSetUserTopic, s.userTopic},
	})
	s.handle("/streams", map[string]endpoint{
		http.MethodGet: {chat.OpChannels, s.getStreams},
	})
	s.handle("/streams/{stream_id}", map[string]endpoint{
		http.MethodGet:    {chat.OpChannelByID, s.getStream},
		http.MethodPatch:  {chat.OpUpdateChannel, s.updateStream},
		http.MethodDelete: {chat.OpArchiveChannel, s.archiveStream},
	})
	s.handle("/default_streams", map[string]endpoint{
		http.MethodPost:   {chat.OpSetDefaultChannel, s.addDefaultStream},
		http.MethodDelete: {chat.OpSetDefaultChannel, s.removeDefaultStream},
	})
	s.handle("/streams/{stream_id}/email_address", map[string]endpoint{
		http.MethodGet: {chat.OpChannelByID, s.getStreamEmailAddress},
	})
	s.handle("/get_stream_id", map[string]endpoint{
		http.MethodGet: {chat.OpChannelIDByName, s.getStreamID},
	})
	s.handle("/streams/{stream_id}/members", map[string]endpoint{
		http.MethodGet: {chat.OpChannelSubscribers, s.getStreamMembers},
	})

	s.handle("/streams/{stream_id}/delete_topic", map[string]endpoint{
		http.MethodPost: {chat.OpDeleteTopic, s.deleteTopic},
	})
	s.handle("/channel_folders", map[string]endpoint{
		http.MethodGet: {chat.OpChannelFolders, s.getChannelFolders},
	})
	s.handle("/channel_folders/create", map[string]endpoint{
		http.MethodPost: {chat.OpCreateChannelFolder, s.createChannelFolder},
	})
	s.handle("/channel_folders/{channel_folder_id}", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateChannelFolder, s.updateChannelFolder},
	})
	s.handle("/user_groups", map[string]endpoint{
		http.MethodGet: {chat.OpUserGroups, s.getUserGroups},
	})
	s.userGroupRoutes()
}

// groupSetting reads a group-setting parameter into *dst when present.
func groupSetting(p *params, name string, dst **chat.GroupSetting) {
	p.Decode(name, func(b []byte) error {
		v, err := chat.ParseGroupSetting(name, b)
		if err == nil {
			*dst = &v
		}
		return err
	})
}

// POST /users/me/subscriptions
func (s *Server) subscribe(c *call) (fields, error) {
	var req chat.SubscribeRequest
	p := c.p
	if !p.Decode("subscriptions", func(b []byte) (err error) {
		req.Subscriptions, err = chat.DecodeChannelSpecs(b)
		return err
	}) && p.Err() == nil {
		return nil, chat.MissingArgument("subscriptions")
	}
	p.Decode("principals", func(b []byte) error {
		req.Principals = &chat.Principals{}
		return req.Principals.UnmarshalJSON(b)
	})
	req.AuthorizationErrorsFatal = p.BoolPtr("authorization_errors_fatal")
	req.Announce = p.Bool("announce", false)
	req.InviteOnly = p.Bool("invite_only", false)
	req.IsWebPublic = p.Bool("is_web_public", false)
	req.IsDefaultStream = p.Bool("is_default_stream", false)
	req.HistoryPublicToSubscribers = p.BoolPtr("history_public_to_subscribers")
	p.Decode("message_retention_days", func(b []byte) error {
		req.MessageRetentionDays = &chat.RetentionDays{}
		return req.MessageRetentionDays.UnmarshalJSON(b)
	})
	if v, ok := p.String("topics_policy"); ok {
		policy := chat.TopicsPolicy(v)
		req.TopicsPolicy = &policy
	}
	groupSetting(p, "can_add_subscribers_group", &req.CanAddSubscribersGroup)
	groupSetting(p, "can_remove_subscribers_group", &req.CanRemoveSubscribersGroup)
	groupSetting(p, "can_administer_channel_group", &req.CanAdministerChannelGroup)
	groupSetting(p, "can_delete_any_message_group", &req.CanDeleteAnyMessageGroup)
	groupSetting(p, "can_delete_own_message_group", &req.CanDeleteOwnMessageGroup)
	groupSetting(p, "can_send_message_group", &req.CanSendMessageGroup)
	groupSetting(p, "can_subscribe_group", &req.CanSubscribeGroup)
	if id, ok := p.Int("folder_id"); ok {
		req.FolderID = &id
	}
	req.SendNewSubscriptionMessages = p.BoolPtr("send_new_subscription_messages")
	if err := p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.Subscribe(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	out := fields{{"subscribed", res.Subscribed}, {"already_subscribed", res.AlreadySubscribed}}
	if res.Unauthorized != nil {
		out = append(out, field{"unauthorized", res.Unauthorized})
	}
	if res.NewSubscriptionMessagesSent != nil {
		out = append(out, field{"new_subscription_messages_sent", *res.NewSubscriptionMessagesSent})
	}
	return out, nil
}

// GET /users/me/subscriptions
func (s *Server) getSubscriptions(c *call) (fields, error) {
	with := c.p.Bool("include_subscribers", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	subs, err := s.svc.Subscriptions(c.ctx, c.actor, with)
	if err != nil {
		return nil, err
	}
	return fields{{"subscriptions", subs}}, nil
}

// DELETE /users/me/subscriptions
func (s *Server) unsubscribe(c *call) (fields, error) {
	names := c.p.StringList("subscriptions")
	if names == nil && c.p.Err() == nil {
		return nil, chat.MissingArgument("subscriptions")
	}
	var principals *chat.Principals
	c.p.Decode("principals", func(b []byte) error {
		principals = &chat.Principals{}
		return principals.UnmarshalJSON(b)
	})
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.Unsubscribe(c.ctx, c.actor, names, principals)
	if err != nil {
		return nil, err
	}
	return fields{{"removed", res.Removed}, {"not_removed", res.NotRemoved}}, nil
}

// POST /users/me/subscriptions/properties
func (s *Server) updateSubscriptionProperties(c *call) (fields, error) {
	var changes []chat.PropertyChange
	if !c.p.Decode("subscription_data", func(b []byte) (err error) {
		changes, err = chat.DecodeSubscriptionData(b)
		return err
	}) && c.p.Err() == nil {
		return nil, chat.MissingArgument("subscription_data")
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateSubscriptionProperties(c.ctx, c.actor, changes)
}

// PATCH /users/me/subscriptions/{stream_id}: value is a JSON boolean, or
// else taken as a raw string (a colour).
func (s *Server) updateSubscriptionProperty(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	change := chat.PropertyChange{StreamID: id, Property: c.p.RequiredString("property")}
	raw := c.p.RequiredString("value")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	var b bool
	if json.Unmarshal([]byte(raw), &b) == nil {
		change.Value = chat.BoolValue(b)
	} else {
		change.Value = chat.StringValue(raw)
	}
	return nil, s.svc.UpdateSubscriptionProperty(c.ctx, c.actor, change)
}

// PATCH /users/me/subscriptions/muted_topics
func (s *Server) mutedTopics(c *call) (fields, error) {
	var req chat.MuteTopicRequest
	if id, ok := c.p.Int("stream_id"); ok {
		req.StreamID = &id
	}
	if name, ok := c.p.String("stream"); ok {
		req.Stream = &name
	}
	req.Topic = c.p.RequiredString("topic")
	req.Op = c.p.RequiredString("op")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.MuteTopic(c.ctx, c.actor, req)
}

// POST /user_topics
func (s *Server) userTopic(c *call) (fields, error) {
	id := c.p.RequiredInt("stream_id")
	topic := c.p.RequiredString("topic")
	policy := c.p.RequiredInt("visibility_policy")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.SetUserTopic(c.ctx, c.actor, id, topic, int(policy))
}

// GET /streams
func (s *Server) getStreams(c *call) (fields, error) {
	p := c.p
	q := chat.ChannelQuery{
		IncludePublic:     p.Bool("include_public", true),
		IncludeWebPublic:  p.Bool("include_web_public", false),
		IncludeSubscribed: p.Bool("include_subscribed", true),
		ExcludeArchived:   p.Bool("exclude_archived", true),
		IncludeDefault:    p.Bool("include_default", false),
	}
	q.IncludeAll = p.Bool("include_all", false) || p.Bool("include_all_active", false)
	if err := p.Err(); err != nil {
		return nil, err
	}
	streams, err := s.svc.Channels(c.ctx, c.actor, q)
	if err != nil {
		return nil, err
	}
	return fields{{"streams", streams}}, nil
}

// GET /streams/{stream_id}
func (s *Server) getStream(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	stream, err := s.svc.ChannelByID(c.ctx, c.actor, id)
	if err != nil {
		return nil, err
	}
	return fields{{"stream", stream}}, nil
}

// PATCH /streams/{stream_id}
func (s *Server) updateStream(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	p := c.p
	req := chat.ChannelUpdate{NewName: p.OptString("new_name"), Description: p.OptString("description"),
		IsPrivate: p.OptBool("is_private"), HistoryPublicToSubscribers: p.OptBool("history_public_to_subscribers"),
		IsWebPublic: p.OptBool("is_web_public"), IsDefaultStream: p.OptBool("is_default_stream"),
		IsArchived: p.OptBool("is_archived")}
	p.Decode("message_retention_days", func(b []byte) error {
		req.MessageRetentionDays = new(chat.RetentionDays)
		return req.MessageRetentionDays.UnmarshalJSON(b)
	})
	p.Decode("topics_policy", func(b []byte) error {
		req.TopicsPolicy = new(chat.TopicsPolicy)
		if req.TopicsPolicy.UnmarshalJSON(b) != nil {
			return errorf("Invalid topics_policy")
		}
		return nil
	})
	p.Decode("folder_id", func(b []byte) error {
		var id *int64
		if json.Unmarshal(b, &id) != nil {
			return errorf("folder_id is not an integer")
		}
		req.FolderID = new(int64)
		if id != nil {
			*req.FolderID = *id
		}
		return nil
	})
	for _, name := range chat.ChannelGroupSettingNames() {
		p.Decode(name, func(b []byte) error {
			var u chat.GroupSettingUpdate
			if err := u.UnmarshalJSON(b); err != nil {
				return errorf("Invalid %s", name)
			}
			if req.Groups == nil {
				req.Groups = map[string]chat.GroupSettingUpdate{}
			}
			req.Groups[name] = u
			return nil
		})
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateChannel(c.ctx, c.actor, id, req)
}

// DELETE /streams/{stream_id}
func (s *Server) archiveStream(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.ArchiveChannel(c.ctx, c.actor, id)
}

// POST /default_streams
func (s *Server) addDefaultStream(c *call) (fields, error) {
	return s.setDefaultStream(c, true)
}

// DELETE /default_streams
func (s *Server) removeDefaultStream(c *call) (fields, error) {
	return s.setDefaultStream(c, false)
}

func (s *Server) setDefaultStream(c *call, isDefault bool) (fields, error) {
	id := c.p.RequiredInt("stream_id")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.SetDefaultChannel(c.ctx, c.actor, id, isDefault)
}

// GET /streams/{stream_id}/email_address
func (s *Server) getStreamEmailAddress(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	email, err := s.svc.ChannelEmailAddress(c.ctx, c.actor, id)
	if err != nil {
		return nil, err
	}
	return fields{{"email", email}}, nil
}

// GET /get_stream_id
func (s *Server) getStreamID(c *call) (fields, error) {
	name := c.p.RequiredString("stream")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.ChannelIDByName(c.ctx, c.actor, name)
	if err != nil {
		return nil, err
	}
	return fields{{"stream_id", id}}, nil
}

// GET /streams/{stream_id}/members
func (s *Server) getStreamMembers(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	ids, err := s.svc.ChannelSubscribers(c.ctx, c.actor, id)
	if err != nil {
		return nil, err
	}
	return fields{{"subscribers", ids}}, nil
}

// GET /users/{user_id}/subscriptions/{stream_id}
func (s *Server) getSubscriptionStatus(c *call) (fields, error) {
	userID, err := pathID(c.r, "user_id", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	channelID, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	subscribed, err := s.svc.IsSubscribed(c.ctx, c.actor, userID, channelID)
	if err != nil {
		return nil, err
	}
	return fields{{"is_subscribed", subscribed}}, nil
}

// POST /streams/{stream_id}/delete_topic
func (s *Server) deleteTopic(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	topic := c.p.RequiredString("topic_name")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	complete, err := s.svc.DeleteTopic(c.ctx, c.actor, id, topic)
	if err != nil {
		return nil, err
	}
	return fields{{"complete", complete}}, nil
}

// GET /channel_folders
func (s *Server) getChannelFolders(c *call) (fields, error) {
	archived := c.p.Bool("include_archived", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	folders, err := s.svc.ChannelFolders(c.ctx, c.actor, archived)
	if err != nil {
		return nil, err
	}
	return fields{{"channel_folders", folders}}, nil
}

// POST /channel_folders/create
func (s *Server) createChannelFolder(c *call) (fields, error) {
	name := c.p.RequiredString("name")
	description := c.p.RequiredString("description")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.CreateChannelFolder(c.ctx, c.actor, name, description)
	if err != nil {
		return nil, err
	}
	return fields{{"channel_folder_id", id}}, nil
}

// PATCH /channel_folders/{channel_folder_id}
func (s *Server) updateChannelFolder(c *call) (fields, error) {
	id, err := pathID(c.r, "channel_folder_id", chat.ErrInvalidFolderID)
	if err != nil {
		return nil, err
	}
	var req chat.FolderUpdate
	if v, ok := c.p.String("name"); ok {
		req.Name = &v
	}
	if v, ok := c.p.String("description"); ok {
		req.Description = &v
	}
	req.IsArchived = c.p.BoolPtr("is_archived")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateChannelFolder(c.ctx, c.actor, id, req)
}

// GET /user_groups
func (s *Server) getUserGroups(c *call) (fields, error) {
	deactivated := c.p.Bool("include_deactivated_groups", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	groups, err := s.svc.UserGroups(c.ctx, c.actor, deactivated)
	if err != nil {
		return nil, err
	}
	return fields{{"user_groups", groups}}, nil
}

// userChannelRoutes registers the routes of a user's channels whose
// patterns Go's ServeMux cannot hold side by side, since one path can
// match several of them (/users/me/subscriptions/5 matches
// /users/me/{stream_id}/topics too): one mux pattern serves them, and the
// segments pick the route, whose path values are set as its own pattern
// names them.
func (s *Server) userChannelRoutes() {
	property := s.methodsHandler("/users/me/subscriptions/{stream_id}", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateSubscriptionProperties, s.updateSubscriptionProperty},
	})
	topics := s.methodsHandler("/users/me/{stream_id}/topics", map[string]endpoint{
		http.MethodGet: {chat.OpTopics, s.getTopics},
	})
	status := s.methodsHandler("/users/{user_id}/subscriptions/{stream_id}", map[string]endpoint{
		http.MethodGet: {chat.OpIsSubscribed, s.getSubscriptionStatus},
	})
	s.mux.HandleFunc(Prefix+"/users/{user}/{second}/{third}", func(w http.ResponseWriter, r *http.Request) {
		user, second, third := r.PathValue("user"), r.PathValue("second"), r.PathValue("third")
		switch {
		case user == "me" && second == "subscriptions":
			r.SetPathValue("stream_id", third)
			property(w, r)
		case user == "me" && third == "topics":
			r.SetPathValue("stream_id", second)
			topics(w, r)
		case second == "subscriptions":
			r.SetPathValue("user_id", user)
			r.SetPathValue("stream_id", third)
			status(w, r)
		default:
			s.notFound(w, r)
		}
	})
}

// GET /users/me/{stream_id}/topics
func (s *Server) getTopics(c *call) (fields, error) {
	id, err := pathID(c.r, "stream_id", chat.ErrInvalidChannelID)
	if err != nil {
		return nil, err
	}
	allowEmpty := c.p.Bool("allow_empty_topic_name", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	topics, err := s.svc.Topics(c.ctx, c.actor, id, allowEmpty)
	if err != nil {
		return nil, err
	}
	return fields{{"topics", topics}}, nil
}
