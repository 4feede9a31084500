// Package inputfile reads the input files a user names to evolve (score
// files, pilot files, seed files): a regular file, a pipe, or "-" for
// standard input, with a cap on the longest line and a cap on the whole
// size. A device such as /dev/zero, a directory or a runaway pipe is
// thus an error naming the file and the cap, never gigabytes of memory.
//
// Read opens and checks a path; ReadFrom reads an already open reader
// (a file of an fs.FS, say) under the same caps. Both return the whole
// contents, for the parsers that take a []byte.
package inputfile
