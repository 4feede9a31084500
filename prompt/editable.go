package prompt

import (
	"bytes"
	"fmt"
)

// EditableHeader is the comment EncodeEditable puts first: what the file
// is and why it has no content_sha256.
const EditableHeader = `# An editable prompt, written by evolve prompt new. Edit it freely: it
# has no content_sha256 line, so evolve computes the hash whenever it reads
# the file (evolve validate FILE prints it). A prompt store's version
# files carry the hash and are immutable; to edit a copy of one, delete
# its content_sha256 line.
`

// EncodeEditable returns p's canonical encoding (Encode) without the
// content_sha256 line, after EditableHeader: a prompt file a person may
// edit, which Decode accepts and whose hash evolve computes when it reads
// it. It sets p.ContentSHA256 as Encode does, and returns Encode's error
// for an invalid p.
func EncodeEditable(p *Prompt) ([]byte, error) {
	data, err := Encode(p)
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndex(data, []byte("content_sha256: "))
	if i < 0 {
		return nil, fmt.Errorf("prompt: encoding %s: no content_sha256 line", p.Version)
	}
	return append([]byte(EditableHeader), data[:i]...), nil
}
