package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pkg/sftp"
	"github.com/riverqueue/river"
	"golang.org/x/crypto/ssh"

	"ledgerdesk/engine"
	"ledgerdesk/internal/screenids"
	"ledgerdesk/screens/imports"
)

// PullArgs is the job that pulls one SFTP source's new files.
type PullArgs struct {
	Source string `json:"source"`
}

// Kind names the job for the queue.
func (PullArgs) Kind() string { return "intake_sftp" }

// InsertOpts: one try; the schedule is the retry.
func (PullArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// PullWorker runs pull jobs on any node.
type PullWorker struct {
	river.WorkerDefaults[PullArgs]
	Intake *Service
}

// Timeout bounds one pull.
func (w *PullWorker) Timeout(*river.Job[PullArgs]) time.Duration { return 30 * time.Minute }

// Work pulls the source and writes the outcome on its schedule.
func (w *PullWorker) Work(ctx context.Context, job *river.Job[PullArgs]) error {
	p, err := w.Intake.Pull(ctx, job.Args.Source)
	res := p.message()
	var e *engine.Error
	if errors.As(err, &e) {
		res = message{Text: e.Message, Code: e.Key, Params: e.Params}
	} else if err != nil {
		res = message{Text: "The pull failed: " + err.Error(), Code: "intake.pullFailed", Params: map[string]any{"detail": err.Error()}}
	}
	if err != nil {
		w.Intake.Log.Error("sftp intake", "source", job.Args.Source, "err", err)
		// one alert a day per source: a server down all day is one thing to look at
		day := time.Now().UTC().Format(time.DateOnly)
		if aerr := raise(ctx, w.Intake.Pool, "pull:"+job.Args.Source+":"+day, AlertIntakeFailed, screenids.DataImport,
			res.with("source", job.Args.Source)); aerr != nil {
			return aerr
		}
	}
	if _, uerr := w.Intake.Pool.Exec(context.WithoutCancel(ctx), `update intake_schedule set last_result = $2, last_result_code = $3,
		last_result_params = $4, updated_on = now() where name = $1`, "sftp:"+job.Args.Source, res.Text, res.Code, res.Params); uerr != nil {
		return uerr
	}
	return nil // the outcome is on the schedule; its next time tries again
}

// Pulled counts what one pull did.
type Pulled struct {
	Taken   int // imported (queued) or refused with a result
	Waiting int // seen changed since the previous look: taken once unchanged
	Skipped int // taken before
}

func (p Pulled) message() message {
	return message{Text: fmt.Sprintf("%d files taken, %d waiting to be complete.", p.Taken, p.Waiting),
		Code: "intake.pulled", Params: map[string]any{"taken": p.Taken, "waiting": p.Waiting}}
}

// Pull looks at an SFTP source's folder and takes every file the previous
// look found with the same size and time of change, and has not taken in
// that state before: downloaded, checked to be still there unchanged (a
// file renamed or changed while read waits for the next look), and
// submitted as an import by the system user. The import is a job; what it
// loaded is in the extraction log as for uploads.
func (s *Service) Pull(ctx context.Context, name string) (Pulled, error) {
	ctx = system(ctx)
	var p Pulled
	src := s.Config.Source(name)
	if src == nil {
		return p, engine.Invalid("source", "The SFTP source %s is not declared in %s.", name, File).With("intake.unknownSource", "source", name)
	}
	client, conn, err := s.dial(src)
	if err != nil {
		return p, err
	}
	defer conn.Close()
	defer client.Close()
	entries, err := client.ReadDir(src.Folder)
	if err != nil {
		return p, engine.Unavailable("The folder %s on %s cannot be read: %v.", src.Folder, src.Host, err).
			With("intake.remoteFolder", "folder", src.Folder, "host", src.Host, "detail", err.Error())
	}
	listed := []string{}
	for _, e := range entries {
		if !e.Mode().IsRegular() || ignored(e.Name()) {
			continue
		}
		file := path.Join(src.Folder, e.Name())
		listed = append(listed, file)
		st := stamp{e.Size(), e.ModTime().UTC().Truncate(time.Second)}
		state, err := s.look(ctx, src.Name, file, st)
		if err != nil {
			return p, err
		}
		switch state {
		case "taken":
			p.Skipped++
		case "waiting":
			p.Waiting++
		case "ready":
			took, err := s.take(ctx, client, src, file, st)
			if err != nil {
				return p, err
			}
			if took {
				p.Taken++
			} else {
				p.Waiting++
			}
		}
	}
	// A file gone before it was taken is forgotten.
	_, err = s.Pool.Exec(ctx, `delete from intake_seen where source = $1 and status = 'waiting' and path <> all($2)`, src.Name, listed)
	return p, err
}

// dial connects to the source, its host key pinned. Closing the client
// leaves the connection open: the caller closes both.
func (s *Service) dial(src *SFTP) (*sftp.Client, *ssh.Client, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var auth ssh.AuthMethod
	if src.Password != "" {
		pw := getenv(src.Password)
		if pw == "" {
			return nil, nil, engine.Invalid("password", "The environment variable %s (the password of SFTP source %s) is not set.", src.Password, src.Name).
				With("intake.secretMissing", "variable", src.Password, "source", src.Name)
		}
		auth = ssh.Password(pw)
	} else {
		signer, err := ssh.ParsePrivateKey([]byte(getenv(src.Key)))
		if err != nil {
			return nil, nil, engine.Invalid("key", "The environment variable %s (the key of SFTP source %s) does not hold a private key: %v.", src.Key, src.Name, err).
				With("intake.keyBad", "variable", src.Key, "source", src.Name)
		}
		auth = ssh.PublicKeys(signer)
	}
	addr := net.JoinHostPort(src.Host, strconv.Itoa(src.Port))
	conn, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{User: src.User, Auth: []ssh.AuthMethod{auth},
		HostKeyCallback: ssh.FixedHostKey(src.hostKey), Timeout: 30 * time.Second})
	if err != nil {
		if strings.Contains(err.Error(), "host key mismatch") { // what ssh.FixedHostKey answers
			return nil, nil, engine.Forbidden("The SFTP server %s answered with a host key other than the one pinned in %s: nothing was read.", addr, File).
				With("intake.hostKey", "host", addr)
		}
		return nil, nil, engine.Unavailable("The SFTP server %s cannot be reached: %v.", addr, err).With("intake.unreachable", "host", addr, "detail", err.Error())
	}
	client, err := sftp.NewClient(conn)
	if err != nil {
		conn.Close()
		return nil, nil, engine.Unavailable("The server %s does not offer SFTP: %v.", addr, err).With("intake.unreachable", "host", addr, "detail", err.Error())
	}
	return client, conn, nil
}

// look records a look at a remote file: "taken" (taken before as it is
// now), "ready" (unchanged since the previous look) or "waiting".
func (s *Service) look(ctx context.Context, source, file string, st stamp) (string, error) {
	var state string
	err := pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		var taken bool
		if err := tx.QueryRow(ctx, `select exists (select 1 from intake_seen where source = $1 and path = $2 and size_bytes = $3
			and modified_on = $4 and status = 'taken')`, source, file, st.size, st.changed).Scan(&taken); err != nil {
			return err
		}
		if taken {
			state = "taken"
			return nil
		}
		var same bool
		err := tx.QueryRow(ctx, `select size_bytes = $3 and modified_on = $4 from intake_seen
			where source = $1 and path = $2 and status = 'waiting' for update`, source, file, st.size, st.changed).Scan(&same)
		if err == nil && same {
			state = "ready"
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		state = "waiting"
		_, err = tx.Exec(ctx, `insert into intake_seen (source, path, size_bytes, modified_on, status) values ($1, $2, $3, $4, 'waiting')
			on conflict (source, path) where status = 'waiting' do update set size_bytes = excluded.size_bytes, modified_on = excluded.modified_on`,
			source, file, st.size, st.changed)
		return err
	})
	return state, err
}

// take downloads a ready file, checks it is still there as it was, and
// submits it. false: it changed or went while read, and waits.
func (s *Service) take(ctx context.Context, client *sftp.Client, src *SFTP, file string, st stamp) (bool, error) {
	tmp, err := os.CreateTemp("", "ledgerdesk-intake-*")
	if err != nil {
		return false, err
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	remote, err := client.Open(file)
	if err != nil {
		return false, s.forget(ctx, src.Name, file)
	}
	size, err := io.Copy(tmp, remote)
	remote.Close()
	if err != nil {
		return false, engine.Unavailable("Reading %s from %s failed: %v.", file, src.Host, err).
			With("intake.readFailed", "file", file, "host", src.Host, "detail", err.Error())
	}
	if s.afterDownload != nil {
		s.afterDownload(file)
	}
	after, err := client.Stat(file)
	if err != nil {
		return false, s.forget(ctx, src.Name, file) // renamed or removed while read: seen anew under its new name
	}
	if size != st.size || after.Size() != st.size || !after.ModTime().UTC().Truncate(time.Second).Equal(st.changed) {
		_, err := s.Pool.Exec(ctx, `update intake_seen set size_bytes = $3, modified_on = $4 where source = $1 and path = $2 and status = 'waiting'`,
			src.Name, file, after.Size(), after.ModTime().UTC().Truncate(time.Second))
		return false, err
	}
	origin := fmt.Sprintf("sftp:%s:%s@%d:%d", src.Name, file, st.size, st.changed.Unix())
	f, err := s.Imports.Submit(ctx, imports.Upload{Kind: imports.Kind(src.Kind), Layout: src.Layout, FileName: path.Base(file), Origin: origin,
		Content: imports.Content{Size: size, Open: func() (io.ReadCloser, error) { return os.Open(tmp.Name()) }}})
	var importID *int64
	var res message
	var e *engine.Error
	switch {
	case err == nil:
		importID = &f.ImportID
		res = message{Text: fmt.Sprintf("Import %d queued.", f.ImportID), Code: "intake.queued", Params: map[string]any{"importId": f.ImportID}}
	case errors.As(err, &e) && e.Key == "import.inProgress":
		return false, nil // the same content is being imported: the next look decides
	case errors.As(err, &e) && (e.Code == engine.CodeInvalid || e.Code == engine.CodeTooLarge || e.Code == engine.CodeConflict):
		res = message{Text: e.Message, Code: e.Key, Params: e.Params}
		if err := raise(ctx, s.Pool, "refused:"+origin, AlertIntakeFailed, screenids.DataImport,
			res.with("file", path.Base(file), "kind", src.Kind, "source", src.Name)); err != nil {
			return false, err
		}
	default:
		return false, err
	}
	_, err = s.Pool.Exec(ctx, `update intake_seen set status = 'taken', taken_on = now(), import_id = $3, message = $4, message_code = $5,
		message_params = $6 where source = $1 and path = $2 and status = 'waiting'`, src.Name, file, importID, res.Text, res.Code, res.Params)
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) && pg.SQLState() == "23505" {
		return true, nil // another node took it at the same time; its import is the one (origin is unique)
	}
	return true, err
}

// forget drops the waiting look at a file that went.
func (s *Service) forget(ctx context.Context, source, file string) error {
	_, err := s.Pool.Exec(ctx, `delete from intake_seen where source = $1 and path = $2 and status = 'waiting'`, source, file)
	return err
}
