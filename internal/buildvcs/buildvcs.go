// Package buildvcs reads what go build stamped about a binary's version
// control (runtime/debug.BuildInfo's vcs settings): the one reading that
// "faultline version" and the dossier's module record share.
package buildvcs

import "runtime/debug"

// VCS is a build's version-control stamp; a field the build did not
// record is empty (Modified nil).
type VCS struct {
	System   string // "git", ...
	Revision string
	Time     string // RFC 3339, the revision's commit time
	Modified *bool  // the work tree had uncommitted changes
}

// Of reads the vcs, vcs.revision, vcs.time and vcs.modified settings.
func Of(settings []debug.BuildSetting) VCS {
	var v VCS
	for _, s := range settings {
		switch s.Key {
		case "vcs":
			v.System = s.Value
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			b := s.Value == "true"
			v.Modified = &b
		}
	}
	return v
}
