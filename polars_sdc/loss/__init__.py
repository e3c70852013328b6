"""Information-loss measures: SSE/SST (ILSSDM), ILD, and the classic measures."""
