package ratelimit

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

//go:embed sliding_window.lua
var slidingWindowSource string

// slidingWindow runs a batch of checks by EVALSHA and falls back to EVAL
// (which loads it) when the server does not know it yet, for example right
// after a restart.
var slidingWindow = redis.NewScript(slidingWindowSource)
