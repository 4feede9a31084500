// Package bayes is the learned layer of the injection screen: a
// multinomial naive Bayes classifier over hashed word features of one
// sentence, fitted on the screen's labelled corpora, with the binary
// format of its weights and the cross-validation that picks its
// threshold.
//
// A text is scored in these steps:
//
//  1. Windows (Windows): each sentence, or windows of WindowWords words
//     in a longer one.
//  2. Keys (AppendKeys): each word stem, marked when a negator comes
//     before it in its clause, and each pair of adjacent words, hashed
//     to 32 bits (FNV-1a).
//  3. Attack score (Model.Score): the naive Bayes log-likelihood ratio of
//     attack to benign, summed over the keys the model knows and divided
//     by the square root of the number of keys plus Model.PriorKeys, plus
//     the log prior ratio; a window scoring above Model.Threshold is an
//     attack.
//  4. Class (Model.Score's second result): the attack category with the
//     highest naive Bayes posterior over the same keys.
//
// Every fitted parameter is rounded to a multiple of 1/1024 and held as an
// integer, so scores are sums of integers followed by correctly rounded
// IEEE operations, and a model and its threshold are the same on every
// platform (see Fit for the one caveat).
//
// The method is the multinomial model of Manning, Raghavan and Schütze,
// Introduction to Information Retrieval, 2008, section 13.2, with Lidstone
// smoothing; negation marking is that of Das and Chen (2001) and Pang, Lee
// and Vaithyanathan (2002).
package bayes
