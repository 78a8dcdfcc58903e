package main

import (
	"slices"
	"testing"
	"time"
)

// TestPercentile checks the nearest-rank percentiles the report is made of.
func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 0.99); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

// TestMedian checks the median of odd and even counts, and that the
// per-round values it is taken of keep their order for the report.
func TestMedian(t *testing.T) {
	v := []float64{3, 1, 2}
	if got := median(v); got != 2 {
		t.Errorf("median(3, 1, 2) = %v, want 2", got)
	}
	if !slices.Equal(v, []float64{3, 1, 2}) {
		t.Errorf("median reordered its argument: %v", v)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median(4, 1, 3, 2) = %v, want 2.5", got)
	}
}
