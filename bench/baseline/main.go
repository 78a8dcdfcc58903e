// Command baseline serves the two baselines that bench/run.sh compares
// chatd's writes against, on a loopback address:
//
//	-mode bare    a net/http handler that answers the success envelope and
//	              does nothing else
//	-mode upsert  the same answer after one single-row SQLite upsert in its
//	              own transaction (modernc.org/sqlite, WAL, synchronous=NORMAL,
//	              as chatd's store)
package main

import (
	"database/sql"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"

	_ "modernc.org/sqlite"
)

func main() {
	mode := flag.String("mode", "bare", "bare or upsert")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	data := flag.String("data", os.TempDir(), "directory of the upsert database")
	flag.Parse()

	ok := []byte("{\"result\":\"success\",\"msg\":\"\"}\n")
	var handler http.HandlerFunc
	switch *mode {
	case "bare":
		handler = func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			w.Header().Set("Content-Type", "application/json")
			w.Write(ok)
		}
	case "upsert":
		path := filepath.Join(*data, "baseline.db")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
		if err != nil {
			log.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS status (user_id INTEGER PRIMARY KEY, text TEXT NOT NULL)`); err != nil {
			log.Fatal(err)
		}
		stmt, err := db.Prepare(`INSERT INTO status (user_id, text) VALUES (?, ?)
			ON CONFLICT (user_id) DO UPDATE SET text = excluded.text`)
		if err != nil {
			log.Fatal(err)
		}
		var n atomic.Int64
		handler = func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			tx, err := db.Begin()
			if err == nil {
				_, err = tx.Stmt(stmt).Exec(n.Add(1)%1000, r.Form.Get("status_text"))
				if err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(ok)
		}
	default:
		log.Fatalf("unknown -mode %q", *mode)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("baseline %s listening addr=http://%s", *mode, ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}
