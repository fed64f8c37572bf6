package tests

import (
	"testing"

	"github.com/flowerhooks/flower/internal/flowerconfig"
)

func TestFlowerConfigGolden(t *testing.T) { runGolden(t, "flower-config", flowerconfig.Main) }
