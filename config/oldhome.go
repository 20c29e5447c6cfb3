package config

import (
	"os"
	"path/filepath"
	"sort"
)

// movingMarker, in the data root, says that a move from the old home is
// under way: its text is the old home. A run that finds it finishes the
// move (package homemove).
const movingMarker = "moving-from-cache"

// OldHome is what older cmdai kept in the cache root and now belongs in
// the data root: where from, where to, and the marker of a move under
// way. From == To (CMDAI_HOME, the file's home, or XDG_DATA_HOME equal
// to XDG_CACHE_HOME) means there is nothing to move, ever.
type OldHome struct {
	From, To string
	Marker   string
}

// FindOldHome names the old home (the XDG cache root) and the data root.
func FindOldHome(getenv Env) (OldHome, error) {
	to, err := DataRoot(getenv)
	if err != nil {
		return OldHome{}, err
	}
	from, err := CacheRoot(getenv)
	if err != nil {
		return OldHome{}, err
	}
	return OldHome{From: from, To: to, Marker: filepath.Join(to, movingMarker)}, nil
}

// DataParts lists, relative to root, the parts of the data a root holds:
// the private server's data (chroma), the keyword indexes (keywords) and
// each installed model (embeddings/<model>, not the vector cache beside
// them). Sorted; missing ones are left out.
func DataParts(root string) []string {
	var parts []string
	for _, p := range []string{chromaData, keywords} {
		if fi, err := os.Stat(filepath.Join(root, p)); err == nil && fi.IsDir() {
			parts = append(parts, p)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, embeddings))
	for _, e := range entries {
		// Hidden names are a move's staging copies, not models.
		if e.IsDir() && e.Name() != vectorCache && e.Name()[0] != '.' {
			parts = append(parts, filepath.Join(embeddings, e.Name()))
		}
	}
	sort.Strings(parts)
	return parts
}

// PinnedDataDirs are the data directories the user named (CMDAI_CHROMA_DATA,
// CMDAI_MODEL_DIR, in the environment or the configuration file): a move
// must leave them where the setting says. Flags are not seen here: a
// command-line --chroma-data names a directory for one run.
func PinnedDataDirs(getenv Env) []string {
	f, _ := Load(getenv)
	var dirs []string
	for _, env := range []string{"CMDAI_CHROMA_DATA", "CMDAI_MODEL_DIR"} {
		v := getenv(env)
		if v == "" {
			if fv, ok := f.Value(KeyFor(env)); ok {
				v, _ = fv.(string)
			}
		}
		if v != "" {
			if abs, err := filepath.Abs(v); err == nil {
				dirs = append(dirs, abs)
			}
		}
	}
	return dirs
}
