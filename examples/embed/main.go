// Command embed shows the chat library used from a Go program with the
// in-memory store: it creates an organization, adds users, and lists them
// as one of them sees them.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

func main() {
	ctx := context.Background()
	svc := chat.New(memory.New(), chat.Config{})
	defer svc.Close()

	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Acme", Host: "chat.acme.example",
		OwnerEmail: "boss@acme.example", OwnerName: "The Boss",
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "ann@acme.example", FullName: "Ann Example",
		// Only administrators may see Ann's real address.
		EmailVisibility: chat.EmailVisibleAdmins,
	})
	if err != nil {
		log.Fatal(err)
	}
	bob, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
		Email: "bob@acme.example", FullName: "Bob Example", Role: chat.RoleGuest,
	})
	if err != nil {
		log.Fatal(err)
	}

	// Bob, a guest, sees Ann under her placeholder address only.
	users, err := svc.Users(ctx, chat.AsUser(bob.UserID), chat.UserQuery{})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range users {
		visible := "hidden"
		if u.DeliveryEmail != nil {
			visible = *u.DeliveryEmail
		}
		fmt.Printf("%-12s role %d  email %-24s real address %s\n", u.FullName, u.Role, u.Email, visible)
	}

	// Errors carry the wire code and message; compare with errors.Is.
	if _, err := svc.CreateUser(ctx, chat.AsUser(bob.UserID), "eve@acme.example", "password1", "Eve"); err != nil {
		fmt.Println("a guest creating a user:", err)
	}
}
