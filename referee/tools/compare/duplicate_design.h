// The duplicate design of `tarock compare`: who sits where, and how a block of
// played matches becomes per-deal differences, candidate minus baseline. Pure
// functions, no I/O.
//
// Deals come in blocks: block k is one match of n hands (n = seats, so every
// seat deals once) from match seed HandSeed(seed, k), as in tarock-strength.
// Every block is played once per seating, with the same cards:
//   head to head: the rotations of the alternating pattern C B C B ... and of
//     its complement, the distinct ones (4 seats: CBCB, BCBC; 3 seats: 6;
//     5 seats: 10), so candidate and baseline hold every seat of every deal
//     equally often;
//   against fixed opponents: for every seat s, the candidate in s and then the
//     baseline in s, the other seats held by the opponents in the same order
//     (seat s+1+j, mod n, by opponent j mod their number): 2 n seatings.
// Per deal (one hand index of a block) the difference is the mean score of
// the candidate's seats minus the mean score of the baseline's seats, over all
// seatings of the block; a seat that sits the hand out (the 5-player dealer) is
// left out. A deal missing from a seating (a match that ended early) is left
// out of the evidence.
//
// Thread-safety: pure functions.

#ifndef TAROCK_REFEREE_TOOLS_COMPARE_DUPLICATE_DESIGN_H_
#define TAROCK_REFEREE_TOOLS_COMPARE_DUPLICATE_DESIGN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tarock {

// A role per seat: kCandidate, kBaseline, or an opponent's index (>= 0).
inline constexpr int kCandidate = -1;
inline constexpr int kBaseline = -2;
using Seating = std::vector<int>;

std::vector<Seating> HeadToHeadSeatings(int num_seats);
std::vector<Seating> OpponentSeatings(int num_seats, int num_opponents);

// "CBCB", "C01B"...: one letter per seat (opponents by index, 0-9 then '+').
std::string SeatingName(const Seating& seating);

// One hand of a played match, as the match record gives it.
struct PlayedHand {
  int hand_index = 0;
  std::vector<int64_t> scores;     // per seat
  std::vector<bool> sits_out;      // per seat
};

// The hands of a match record (JSON text from the referee): every deal that is
// one of the match's hands (a deal dealt again is not; a thrown-in one is).
absl::StatusOr<std::vector<PlayedHand>> HandsOfRecord(const std::string& record_json);

// The differences of one block: hands[i] are the hands of the match played
// with seatings[i]; the result has one entry per hand index 0..hands_per_block-1
// present in every seating, in hand order.
std::vector<double> BlockDifferences(const std::vector<Seating>& seatings,
                                     const std::vector<std::vector<PlayedHand>>& hands,
                                     int hands_per_block);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_COMPARE_DUPLICATE_DESIGN_H_
