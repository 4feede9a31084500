package process

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// The test binary doubles as a trivial protocol process when
// EVOLVE_PROCESS_HELPER is set; its argument names the role: "env" (step
// mode, episodes of helperSteps steps), "agent" (step mode) or "episode"
// (episode mode).
// The benchmarks measure the protocol's overhead with it, free of any
// interpreter's start-up and speed.
const helperVar = "EVOLVE_PROCESS_HELPER"

// helperNoiseVar, set to N, makes an episode-mode helper write N bytes
// of stderr (lines of 1 KiB) per episode, before its outcome.
const helperNoiseVar = "EVOLVE_PROCESS_HELPER_NOISE"

// helperSteps is the length of a helper environment's episode.
const helperSteps = 100

func TestMain(m *testing.M) {
	if os.Getenv(helperVar) != "" && len(os.Args) == 2 {
		helper(os.Args[1])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperConfig runs the helper as the environment (role "env" or
// "episode"), and in step mode as the agent too.
func helperConfig(role string) Config {
	c := DefaultConfig()
	c.Command = []string{os.Args[0], role}
	if role == "env" {
		c.Agent = []string{os.Args[0], "agent"}
	}
	c.Env = map[string]string{helperVar: "1"}
	return c
}

func helper(role string) {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	var req struct {
		ID   int64  `json:"id"`
		Type string `json:"type"`
		Seed uint64 `json:"seed"`
	}
	var out []byte
	t := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		req.Type = ""
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return
		}
		out = append(strconv.AppendInt(append(out[:0], `{"id":`...), req.ID, 10), ',')
		switch req.Type {
		case "close":
			return
		case "hello":
			mode, provides := "step", `["environment"]`
			switch role {
			case "agent":
				provides = `["agent"]`
			case "episode":
				mode, provides = "episode", `["environment","agent"]`
			}
			out = append(out, `"type":"hello","protocol":1,"name":"helper","mode":"`+mode+`","provides":`+provides+
				`,"causes":[{"name":"lost"}],"metrics":[{"name":"steps","type":"int"}]}`...)
			if role == "agent" {
				out = append(out[:len(out)-len(`,"causes":[{"name":"lost"}],"metrics":[{"name":"steps","type":"int"}]}`)], '}')
			}
		case "reset":
			t = 0
			out = append(out, `"type":"observation","observation":0}`...)
		case "step":
			t++
			out = append(out, `"type":"step","observation":`...)
			out = strconv.AppendInt(out, int64(t), 10)
			if t < helperSteps {
				out = append(out, `,"reward":0,"done":false}`...)
			} else {
				out = append(out, `,"reward":1,"done":true,"outcome":{"score":1,"end_reason":"done","cause":"none","metrics":{"steps":`...)
				out = strconv.AppendInt(out, int64(t), 10)
				out = append(out, `}}}`...)
			}
		case "begin":
			out = append(out, `"type":"ok"}`...)
		case "act":
			out = append(out, `"type":"action","action":"a"}`...)
		case "play":
			if n, _ := strconv.Atoi(os.Getenv(helperNoiseVar)); n > 0 {
				line := append(bytes.Repeat([]byte{'x'}, 1023), '\n')
				for range n >> 10 {
					os.Stderr.Write(line)
				}
			}
			out = append(out, `"type":"outcome","outcome":{"score":`...)
			out = strconv.AppendUint(out, req.Seed%100, 10)
			out = append(out, `,"end_reason":"done","cause":"none","metrics":{"steps":1}}}`...)
		default:
			out = append(out, `"type":"error","message":"unknown request"}`...)
		}
		w.Write(append(out, '\n'))
		w.Flush()
	}
}
