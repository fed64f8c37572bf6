package tests

import (
	"testing"

	"github.com/flowerhooks/flower/internal/delegateguard"
)

func TestDelegateGuardGolden(t *testing.T) { runGolden(t, "delegate-guard", delegateguard.Main) }

func TestDelegateGuardBadStdin(t *testing.T) {
	checkBadStdin(t, "delegate-guard", delegateguard.Main)
}
