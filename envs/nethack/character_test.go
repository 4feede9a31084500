package nethack

import (
	"strings"
	"testing"
)

func TestCharacterValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Character
		want string // a substring of the error, "" for none
	}{
		{Character{"valkyrie", "human", "female", "neutral"}, ""},
		{Character{"Valkyrie", "Dwarf", "Female", "Lawful"}, ""},
		{Character{"val", "hum", "female", "neutral"}, `race: "hum" is not a NetHack race`},
		{Character{"random", "random", "random", "random"}, ""},
		{Character{"@", "@", "@", "@"}, ""},
		{Character{"wizard", "random", "random", "random"}, ""},
		{Character{"random", "elf", "random", "chaotic"}, ""},
		{Character{"knight", "random", "random", "chaotic"}, `role "knight" and alignment "chaotic": a knight is lawful`},
		{Character{"valkyrie", "human", "male", "neutral"}, `role "valkyrie" and gender "male": a valkyrie is female`},
		{Character{"valkyrie", "elf", "female", "random"}, `role "valkyrie" and race "elf": a valkyrie is human, dwarf`},
		{Character{"valkyrie", "dwarf", "female", "neutral"}, `race "dwarf" and alignment "neutral": a dwarf is lawful`},
		{Character{"random", "gnome", "random", "lawful"}, `race "gnome" and alignment "lawful": a gnome is neutral`},
		{Character{"healer", "random", "random", "lawful"}, `role "healer" and alignment "lawful": a healer is neutral`},
		{Character{"rogue", "random", "random", "chaotic"}, ""},
		{Character{"jedi", "human", "female", "neutral"}, `role: "jedi" is not a NetHack role`},
		{Character{"valkyrie", "human", "other", "neutral"}, `gender: "other" is not a NetHack gender`},
		{Character{"valkyrie", "human", "female", "good"}, `alignment: "good" is not a NetHack alignment`},
		{Character{"", "human", "female", "neutral"}, `role: "" is not a NetHack role`},
	} {
		err := tc.c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want valid", tc.c, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want an error containing %q", tc.c, err, tc.want)
		}
	}
}

func TestCharacterOptions(t *testing.T) {
	if got, want := GameOptions(valkyrie), "name:agent,role:Valkyrie,race:human,gender:female,align:neutral,"+options; got != want {
		t.Errorf("default options:\n%s\nwant\n%s", got, want)
	}
	if got, want := (Character{"SAM", "@", "random", "Lawful"}).options(), "role:Samurai,race:random,gender:random,align:lawful"; got != want {
		t.Errorf("options %q, want %q", got, want)
	}
}
