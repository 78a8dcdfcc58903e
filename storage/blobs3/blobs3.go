// Package blobs3 is a storage.BlobStore on S3-compatible object storage
// (Amazon S3, SeaweedFS, Ceph, MinIO and the like), so that several chat
// processes on several machines share their uploads without a shared
// file system.
//
// Writes stream in parts of PartSize bytes through one pooled buffer, so
// a file of any size costs one part of memory. Put sends a blob shorter
// than a part in one request, and a longer one as a multipart upload.
// Append, which resumable uploads need and S3 objects lack, keeps an
// unfinished blob as a multipart upload: each part is uploaded as it
// fills, the bytes short of a part wait in a "tail" object, and a small
// state object records the upload, its parts and the tail's length. The
// blob becomes an object when it reaches the limit its Append was given
// (a resumable upload's declared length), or when it is opened. All of
// that lives in the bucket, so any process can go on with any unfinished
// blob; writes to one key are the caller's to serialise (package chat
// holds its upload lock, shared through the database, around them).
//
// Downloads are served through presigned URLs that expire after
// Config.LinkTTL (Blobs returned by Open implement storage.LinkedBlob), or
// streamed through the server when LinkTTL is zero.
//
// The client library is minio-go: it speaks to any S3-compatible
// endpoint (path-style or virtual-host addressing, Signature V4), signs
// presigned URLs, and takes credentials from the environment as the AWS
// tools do.
package blobs3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/teamchat/chat/storage"
)

// Config says where the blobs live.
type Config struct {
	// Endpoint is the S3 server's host[:port] (s3.amazonaws.com when
	// empty).
	Endpoint string
	// Insecure speaks plain HTTP to the endpoint instead of HTTPS.
	Insecure bool
	// Region is the bucket's region; empty lets the client ask the server.
	Region string
	// Bucket is the bucket, which must exist.
	Bucket string
	// Prefix is prepended to every key ("chat/", say), so that one bucket
	// can hold several deployments.
	Prefix string
	// AccessKey and SecretKey sign the requests. When empty, the
	// credentials come from the environment as the AWS tools take them:
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or MINIO_ROOT_USER and
	// MINIO_ROOT_PASSWORD), the shared credentials file, then the
	// instance's IAM role.
	AccessKey, SecretKey string
	// LinkTTL is how long a download link lives. Zero streams downloads
	// through the server instead of linking to the bucket.
	LinkTTL time.Duration
	// PartSize is the size of the parts of multipart uploads, and the
	// memory one write holds: at least 5 MiB, S3's smallest part, which
	// is also the default.
	PartSize int64
}

// DefaultLinkTTL is the life of a download link when the URL does not set
// one: a minute, as the reference server signs its S3 links.
const DefaultLinkTTL = time.Minute

// minPartSize is S3's smallest part (but the last).
const minPartSize = 5 << 20

// ParseURL reads a Config from a URL of the form
//
//	s3://bucket/prefix?endpoint=host:port&region=us-east-1&insecure=true&link=1m
//
// endpoint may carry a scheme (http:// means insecure); link is the life
// of download links as a Go duration, "0" to stream downloads, and
// defaults to DefaultLinkTTL. Credentials never come from the URL.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("blobs3: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return Config{}, fmt.Errorf("blobs3: %q is not s3://bucket[/prefix]", raw)
	}
	if u.User != nil {
		return Config{}, errors.New("blobs3: credentials belong in the environment, not in the URL")
	}
	cfg := Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), LinkTTL: DefaultLinkTTL}
	q := u.Query()
	for name := range q {
		switch name {
		case "endpoint", "region", "insecure", "link":
		default:
			return Config{}, fmt.Errorf("blobs3: unknown parameter %q (want endpoint, region, insecure or link)", name)
		}
	}
	cfg.Endpoint, cfg.Region = q.Get("endpoint"), q.Get("region")
	switch {
	case strings.HasPrefix(cfg.Endpoint, "http://"):
		cfg.Endpoint, cfg.Insecure = strings.TrimPrefix(cfg.Endpoint, "http://"), true
	case strings.HasPrefix(cfg.Endpoint, "https://"):
		cfg.Endpoint = strings.TrimPrefix(cfg.Endpoint, "https://")
	}
	switch v := q.Get("insecure"); v {
	case "":
	case "true", "1":
		cfg.Insecure = true
	case "false", "0":
	default:
		return Config{}, fmt.Errorf("blobs3: insecure=%q is not a boolean", v)
	}
	if v := q.Get("link"); v != "" {
		if v == "0" {
			cfg.LinkTTL = 0
		} else if cfg.LinkTTL, err = time.ParseDuration(v); err != nil || cfg.LinkTTL <= 0 || cfg.LinkTTL > 7*24*time.Hour {
			return Config{}, fmt.Errorf("blobs3: link=%q is not a duration of up to 7 days (S3's longest)", v)
		}
	}
	return cfg, nil
}

// Store is a storage.BlobStore in an S3 bucket. It is safe for concurrent
// use; concurrent writes to one key are the caller's to serialise.
type Store struct {
	client   *minio.Client
	core     minio.Core
	bucket   string
	prefix   string
	linkTTL  time.Duration
	partSize int64
	buffers  sync.Pool
}

// New connects to the bucket of cfg and checks that it exists.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("blobs3: no bucket")
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = "s3.amazonaws.com"
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = minPartSize
	}
	if cfg.PartSize < minPartSize {
		return nil, fmt.Errorf("blobs3: part size %d is under S3's smallest part, 5 MiB", cfg.PartSize)
	}
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	if cfg.AccessKey == "" && cfg.SecretKey == "" {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.FileAWSCredentials{}, &credentials.IAM{},
		})
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{Creds: creds, Secure: !cfg.Insecure, Region: cfg.Region})
	if err != nil {
		return nil, fmt.Errorf("blobs3: %w", err)
	}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blobs3: reaching bucket %q at %s: %w", cfg.Bucket, cfg.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("blobs3: bucket %q does not exist at %s", cfg.Bucket, cfg.Endpoint)
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	s := &Store{client: client, core: minio.Core{Client: client}, bucket: cfg.Bucket, prefix: prefix,
		linkTTL: cfg.LinkTTL, partSize: cfg.PartSize}
	s.buffers.New = func() any { b := make([]byte, 0, s.partSize); return &b }
	return s, nil
}

// appendDir holds the state and tail objects of unfinished blobs; no key
// starts with a dot.
const appendDir = ".append/"

// errBadKey answers a key that is not a clean relative slash path.
var errBadKey = errors.New("blobs3: invalid key")

// object returns the object name of key. Keys come validated from
// package chat; this check keeps them off the store's own objects.
func (s *Store) object(key string) (string, error) {
	if !storage.ValidBlobKey(key) {
		return "", fmt.Errorf("%w: %q", errBadKey, key)
	}
	return s.prefix + key, nil
}

func (s *Store) stateObject(key string) string { return s.prefix + appendDir + key + ".state" }
func (s *Store) tailObject(key string) string  { return s.prefix + appendDir + key + ".tail" }

// notFound reports whether err says the object (or upload) is missing.
func notFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey" || r.Code == "NoSuchUpload"
}

// wrap marks the errors of the S3 client as this package's.
func wrap(err error) error {
	if err == nil || errors.Is(err, storage.ErrBlobTooLarge) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("blobs3: %w", err)
}

// buffer returns an empty buffer of one part from the pool.
func (s *Store) buffer() *[]byte {
	b := s.buffers.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// Put stores r under key: in one request when it is shorter than a part,
// else as a multipart upload that is aborted on any failure.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, limit int64) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	bp := s.buffer()
	defer s.buffers.Put(bp)
	w := &upload{s: s, obj: obj}
	n, err := s.fill(ctx, w, bp, r, limit, nil)
	if err == nil {
		err = probeEnd(r)
	}
	if err == nil {
		err = w.finish(ctx, *bp)
	}
	if err != nil {
		w.abort()
		return 0, wrap(err)
	}
	// A Put replaces an unfinished blob as well as a finished one.
	if err := s.discardAppend(ctx, key); err != nil {
		return 0, err
	}
	return n, nil
}

// fill reads at most limit bytes of r into the buffer behind bp, which
// may already hold some, sending every full buffer as a part of w (after
// which saved, when not nil, records the progress). It returns how many
// bytes of r it read.
func (s *Store) fill(ctx context.Context, w *upload, bp *[]byte, r io.Reader, limit int64, saved func() error) (int64, error) {
	lr := io.LimitReader(storage.ContextReader(ctx, r), limit)
	var n int64
	for {
		buf := *bp
		k, err := io.ReadFull(lr, buf[len(buf):cap(buf)])
		*bp = buf[:len(buf)+k]
		n += int64(k)
		if len(*bp) == cap(*bp) {
			if perr := w.part(ctx, *bp); perr != nil {
				return n, perr
			}
			*bp = (*bp)[:0]
			if saved != nil {
				if serr := saved(); serr != nil {
					return n, serr
				}
			}
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return n, nil
		case err != nil:
			return n, err
		}
	}
}

// probeEnd answers ErrBlobTooLarge when r has more to give.
func probeEnd(r io.Reader) error {
	var probe [1]byte
	m, err := io.ReadFull(r, probe[:])
	switch {
	case m > 0:
		return storage.ErrBlobTooLarge
	case err == io.EOF:
		return nil
	}
	return err
}

// Size returns the length of the blob under key, finished or not.
func (s *Store) Size(ctx context.Context, key string) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	st, err := s.loadState(ctx, key)
	if err != nil {
		return 0, err
	}
	if st != nil {
		return st.size(), nil
	}
	info, err := s.client.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	if notFound(err) {
		return 0, storage.ErrNotFound
	}
	if err != nil {
		return 0, wrap(err)
	}
	return info.Size, nil
}

// Open returns a reader of the blob under key, finishing it first when it
// is being appended to. A finished blob costs one request: a HEAD when
// downloads are linked (the bytes are the client's to fetch), else the GET
// of its bytes, which the first Read goes on with. An unfinished blob has
// no object (Append removes the object it resumes from), so its state is
// read only when the object is missing.
func (s *Store) Open(ctx context.Context, key string) (storage.Blob, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	b, err := s.open(ctx, obj)
	if notFound(err) {
		var u *upload
		if u, err = s.loadState(ctx, key); err != nil {
			return nil, err
		}
		if u == nil {
			return nil, storage.ErrNotFound
		}
		if err := s.finishAppend(ctx, key, u); err != nil {
			return nil, err
		}
		b, err = s.open(ctx, obj)
	}
	if err != nil {
		return nil, wrap(err)
	}
	if s.linkTTL > 0 {
		return &linkedBlob{b}, nil
	}
	return b, nil
}

// open opens the object obj: with its body when downloads are streamed.
func (s *Store) open(ctx context.Context, obj string) (*blob, error) {
	var info minio.ObjectInfo
	var body io.ReadCloser
	var err error
	if s.linkTTL > 0 {
		info, err = s.client.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	} else {
		body, info, _, err = s.core.GetObject(ctx, s.bucket, obj, minio.GetObjectOptions{})
	}
	if err != nil {
		return nil, err
	}
	return &blob{ctx: ctx, s: s, obj: obj, etag: info.ETag, size: info.Size, mod: info.LastModified, body: body}, nil
}

// Delete removes the blob under key, and an unfinished one's upload.
func (s *Store) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.discardAppend(ctx, key); err != nil {
		return err
	}
	return wrap(s.client.RemoveObject(ctx, s.bucket, obj, minio.RemoveObjectOptions{}))
}

var _ storage.BlobLister = (*Store)(nil)

// List returns the keys of finished blobs that start with prefix, sorted.
// Unfinished ones are not listed: package chat collects them through its
// resumable uploads' expiry, which deletes them.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	// Cancelling stops the listing's producer when an error ends the loop.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out []string
	for info := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if info.Err != nil {
			return nil, wrap(info.Err)
		}
		key := strings.TrimPrefix(info.Key, s.prefix)
		if !strings.HasPrefix(key, appendDir) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out, nil
}

// blob reads an object from the offset of its last Seek, one ranged GET
// per contiguous read, pinned to the version Open saw by its ETag.
type blob struct {
	ctx    context.Context
	s      *Store
	obj    string
	etag   string
	size   int64
	mod    time.Time
	offset int64
	// body reads the object from bodyAt on; a Read elsewhere replaces it,
	// so that seeking to the end and back (as http.ServeContent does to
	// learn the size) costs nothing.
	body   io.ReadCloser
	bodyAt int64
}

func (b *blob) Size() int64        { return b.size }
func (b *blob) ModTime() time.Time { return b.mod }

func (b *blob) Read(p []byte) (int, error) {
	if b.offset >= b.size {
		return 0, io.EOF
	}
	if b.body != nil && b.bodyAt != b.offset {
		b.body.Close()
		b.body = nil
	}
	if b.body == nil {
		opts := minio.GetObjectOptions{}
		if err := opts.SetMatchETag(b.etag); err != nil {
			return 0, wrap(err)
		}
		if b.offset > 0 {
			if err := opts.SetRange(b.offset, 0); err != nil {
				return 0, wrap(err)
			}
		}
		body, _, _, err := b.s.core.GetObject(b.ctx, b.s.bucket, b.obj, opts)
		if err != nil {
			return 0, wrap(err)
		}
		b.body, b.bodyAt = body, b.offset
	}
	n, err := b.body.Read(p)
	b.offset += int64(n)
	b.bodyAt = b.offset
	if err == io.EOF && b.offset < b.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *blob) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += b.offset
	case io.SeekEnd:
		offset += b.size
	}
	if offset < 0 {
		return 0, errors.New("blobs3: seek before the start")
	}
	b.offset = offset
	return offset, nil
}

func (b *blob) Close() error {
	if b.body != nil {
		b.body.Close()
		b.body = nil
	}
	return nil
}

// linkedBlob is a blob that clients may fetch from the bucket.
type linkedBlob struct{ *blob }

var _ storage.LinkedBlob = (*linkedBlob)(nil)

// Link presigns a GET of the object that answers with the headers of h.
func (b *linkedBlob) Link(ctx context.Context, h storage.BlobHeader) (string, error) {
	q := url.Values{}
	for name, v := range map[string]string{"response-content-type": h.ContentType,
		"response-content-disposition": h.ContentDisposition, "response-cache-control": h.CacheControl} {
		if v != "" {
			q.Set(name, v)
		}
	}
	u, err := b.s.client.PresignedGetObject(ctx, b.s.bucket, b.obj, b.s.linkTTL, q)
	if err != nil {
		return "", wrap(err)
	}
	return u.String(), nil
}
