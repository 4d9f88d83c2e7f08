package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/faultline-go/faultline/pgfault/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestStartAndClose(t *testing.T) {
	s := pgtest.Start(t)
	ctx := context.Background()
	for role, super := range map[string]bool{pgtest.App: false, pgtest.Superuser: true} {
		conn, err := pgx.Connect(ctx, s.DSN(role))
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		var isSuper, db string
		if err := conn.QueryRow(ctx, "SELECT current_setting('is_superuser'), current_database()").Scan(&isSuper, &db); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
		if (isSuper == "on") != super || db != pgtest.Database {
			t.Errorf("%s: superuser %s, database %s", role, isSuper, db)
		}
	}

	// Close stops the server and deletes the cluster.
	conn, err := pgx.Connect(ctx, s.DSN(pgtest.Superuser))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var dir string
	if err := conn.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := conn.Ping(ctx); err == nil {
		t.Error("server still answers after Close")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data directory %s still exists: %v", dir, err)
	}
	s.Close() // twice is fine
}
