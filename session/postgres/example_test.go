package postgres_test

import (
	"context"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/postgres"
)

// The pool is the program's: its size bounds the store's concurrent
// transactions, and its search_path says where the tables live.
func ExampleNew() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig("postgres://toolwire@db.internal/toolwire")
	if err != nil {
		log.Fatal(err)
	}
	cfg.MaxConns = 16
	cfg.ConnConfig.RuntimeParams["search_path"] = "agents"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	store, err := postgres.New(ctx, pool, &postgres.Config{}) // migrations applied
	if err != nil {
		log.Fatal(err)
	}
	s, err := store.Create(ctx, session.Session{Agent: "support"})
	if err != nil {
		log.Fatal(err)
	}
	log.Println("session", s.ID)
}
