package blobs3_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/teamchat/chat/internal/s3test"
)

// BenchmarkThroughput measures, on the S3 server of CHAT_TEST_S3_URL
// (scripts/with-s3.sh), the store's writes and reads of one blob against
// the same client library moving the same bytes straight to and from the
// server (raw: one PutObject of known size, one GetObject): Put of a
// stream of unknown length, Append in the 4 MiB chunks of a resumable
// upload, and Open and read. Each round does every kind once, in turn;
// it reports the medians in MB/s and store/raw ratios (goal: near 1).
func BenchmarkThroughput(b *testing.B) {
	for _, size := range []int{1 << 20, 32 << 20} {
		b.Run(fmt.Sprintf("size=%dMiB", size>>20), func(b *testing.B) { benchThroughput(b, size) })
	}
}

func benchThroughput(b *testing.B, size int) {
	ctx := context.Background()
	raw := s3test.URL(b)
	s := openURL(b, raw+"&link=0") // streamed: the bytes pass through the store
	u, _ := url.Parse(raw)
	endpoint := strings.TrimPrefix(u.Query().Get("endpoint"), "http://")
	client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewEnvAWS(), Region: u.Query().Get("region")})
	if err != nil {
		b.Fatal(err)
	}
	bucket, prefix := u.Host, strings.Trim(u.Path, "/")+"/"
	data := randomData(size)
	const chunk = 4 << 20
	kinds := []struct {
		name string
		run  func(round int) error
	}{
		{"raw-put", func(round int) error {
			_, err := client.PutObject(ctx, bucket, prefix+fmt.Sprintf("raw/%d", round), bytes.NewReader(data), int64(size), minio.PutObjectOptions{})
			return err
		}},
		{"put", func(round int) error {
			_, err := s.Put(ctx, fmt.Sprintf("tus/put-%d", round), io.MultiReader(bytes.NewReader(data)), int64(size))
			return err
		}},
		{"append", func(round int) error {
			key := fmt.Sprintf("tus/append-%d", round)
			for off := 0; off < size; off += chunk {
				if _, err := s.Append(ctx, key, bytes.NewReader(data[off:min(off+chunk, size)]), int64(size)); err != nil {
					return err
				}
			}
			return nil
		}},
		{"raw-get", func(round int) error {
			o, err := client.GetObject(ctx, bucket, prefix+fmt.Sprintf("raw/%d", round), minio.GetObjectOptions{})
			if err != nil {
				return err
			}
			defer o.Close()
			_, err = io.Copy(io.Discard, o)
			return err
		}},
		{"get", func(round int) error {
			blob, err := s.Open(ctx, fmt.Sprintf("tus/put-%d", round))
			if err != nil {
				return err
			}
			defer blob.Close()
			_, err = io.Copy(io.Discard, blob)
			return err
		}},
	}
	times := map[string][]time.Duration{}
	rounds := max(b.N, 5)
	b.ResetTimer()
	for round := range rounds {
		for _, k := range kinds {
			start := time.Now()
			if err := k.run(round); err != nil {
				b.Fatalf("%s: %v", k.name, err)
			}
			times[k.name] = append(times[k.name], time.Since(start))
		}
	}
	b.StopTimer()
	median := func(name string) time.Duration {
		ts := slices.Clone(times[name])
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	mbps := func(name string) float64 { return float64(size) / 1e6 / median(name).Seconds() }
	for _, k := range kinds {
		b.ReportMetric(mbps(k.name), k.name+"-MB/s")
	}
	b.ReportMetric(mbps("put")/mbps("raw-put"), "put/raw")
	b.ReportMetric(mbps("append")/mbps("raw-put"), "append/raw")
	b.ReportMetric(mbps("get")/mbps("raw-get"), "get/raw")
}

func randomData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}
