// Package httpguard closes evolve's HTTP servers (evolve serve, evolve
// view) to other origins, and holds the rule their bearer tokens follow.
//
// A Guard wraps a handler and, in order:
//
//  1. refuses (403) a request whose Host header names a host the server
//     does not answer to: a web page can point a name it controls at
//     127.0.0.1 (DNS rebinding) and then read and write a tokenless
//     loopback server as its own origin, but its requests carry that
//     name in Host. An IP address, "localhost" and names under
//     ".localhost" (which browsers resolve to loopback themselves, RFC
//     6761 section 6.3), the host of the listen address, the machine's
//     host name and the names of Config.Hosts are answered; others are
//     not.
//  2. refuses (403) a state-changing request (any method but GET, HEAD
//     and OPTIONS) from another origin, as net/http's
//     CrossOriginProtection tells it by the Sec-Fetch-Site and Origin
//     headers: a page on another origin (another port of loopback
//     included) cannot post to the server;
//  3. refuses (415) a state-changing request whose Content-Type is not
//     application/json: a page may send a text/plain POST without CORS
//     ("no-cors"), never a JSON one, so a browser that sends neither
//     Sec-Fetch-Site nor Origin is stopped too.
//
// A token, where the server has one, is checked after the guard; the
// guard does not need one, so that servers on loopback stay usable
// without a token. CheckToken is the rule for a token's strength.
package httpguard
