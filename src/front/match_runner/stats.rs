//! Match statistics: score rate with a Wilson interval, Elo difference with its error margin,
//! and a sequential probability ratio test. Draws count as half a win throughout.

use serde::Serialize;

/// The normal quantile for a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// Wins, draws and losses of one side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn (jigo).
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game scored 1 (win), 0.5 (draw) or 0 (loss).
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// The same games seen from the other side.
    pub fn flipped(&self) -> Tally {
        Tally {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// The mean score per game, a draw counting half; 0.5 with no games.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n),
        }
    }

    /// The Wilson 95% interval of the score rate.
    pub fn wilson(&self) -> (f64, f64) {
        let n = f64::from(self.games());
        if n == 0.0 {
            return (0.0, 1.0);
        }
        let p = self.score();
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        ((centre - half).max(0.0), (centre + half).min(1.0))
    }

    /// The per-game variance of the score, with half a virtual win and half a virtual loss so
    /// that it stays positive when every game ended the same way.
    fn variance(&self) -> f64 {
        let (w, d, l) = (
            f64::from(self.wins) + 0.5,
            f64::from(self.draws),
            f64::from(self.losses) + 0.5,
        );
        let n = w + d + l;
        let mean = (w + 0.5 * d) / n;
        (w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2)) / n
    }

    /// The Elo difference the score implies and the half-width of its 95% interval (as
    /// cutechess computes it: the score's normal interval mapped through the Elo curve).
    /// Infinite when every game was won or lost.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games().max(1));
        let mean = self.score();
        let margin = Z95 * (self.variance() / n).sqrt();
        let high = elo_of_score((mean + margin).min(1.0));
        let low = elo_of_score((mean - margin).max(0.0));
        (elo_of_score(mean), (high - low) / 2.0)
    }
}

/// The Elo difference at which the stronger side scores `score` (logistic model).
pub fn elo_of_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a side `elo` points stronger.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An SPRT: is the first engine `elo1` stronger (H1) rather than `elo0` (H0)?
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// H1 accepted: at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: not more than `elo0`.
    AcceptH0,
    /// Not decided yet.
    Continue,
}

impl Sprt {
    /// Parses `ELO0,ELO1[,ALPHA,BETA]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let values: Vec<f64> = text
            .split(',')
            .map(|v| v.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("--sprt wants ELO0,ELO1[,ALPHA,BETA], got `{text}`"))?;
        let (elo0, elo1, alpha, beta) = match values[..] {
            [e0, e1] => (e0, e1, 0.05, 0.05),
            [e0, e1, a, b] => (e0, e1, a, b),
            _ => return Err(format!("--sprt wants ELO0,ELO1[,ALPHA,BETA], got `{text}`")),
        };
        let probability = |p: f64| p > 0.0 && p < 0.5;
        if !(elo0 < elo1 && probability(alpha) && probability(beta)) {
            return Err(format!(
                "--sprt needs ELO0 < ELO1 and 0 < ALPHA, BETA < 0.5, got `{text}`"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The log-likelihood ratio of H1 over H0 after the games in `tally`, in the normal
    /// approximation of the trinomial (win/draw/loss) model that fishtest uses.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let n = f64::from(tally.games());
        if n == 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        n * (s1 - s0) * (2.0 * tally.score() - s0 - s1) / (2.0 * tally.variance())
    }

    /// The bounds (lower, upper) of the log-likelihood ratio where the test stops.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The verdict after the games in `tally`.
    pub fn verdict(&self, tally: &Tally) -> Verdict {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn draws_count_half() {
        assert_eq!(tally(3, 2, 5).score(), 0.4);
        assert_eq!(tally(0, 0, 0).score(), 0.5);
        assert_eq!(tally(3, 2, 5).flipped(), tally(5, 2, 3));
    }

    #[test]
    fn wilson_matches_the_textbook_values() {
        // 95 of 100: the interval the engine notes quote, about [88.8%, 97.8%].
        let (low, high) = tally(95, 0, 5).wilson();
        assert!(
            (low - 0.8883).abs() < 1e-3 && (high - 0.9785).abs() < 1e-3,
            "{low} {high}"
        );
        let (low, high) = tally(10, 0, 0).wilson();
        assert!(low > 0.69 && low < 0.73 && high > 0.999_999, "{low} {high}");
    }

    #[test]
    fn elo_is_zero_at_evens_and_grows_with_the_score() {
        assert_eq!(tally(5, 0, 5).elo().0, 0.0);
        let (elo, margin) = tally(75, 0, 25).elo();
        assert!((elo - 190.8).abs() < 0.5, "{elo}");
        assert!(margin > 50.0 && margin < 100.0, "{margin}");
        assert!((score_of_elo(elo_of_score(0.3)) - 0.3).abs() < 1e-12);
        assert_eq!(tally(4, 0, 0).elo().0, f64::INFINITY);
    }

    #[test]
    fn sprt_accepts_the_hypothesis_the_games_support() {
        let sprt = Sprt::parse("0,50").unwrap();
        assert_eq!(sprt.verdict(&tally(0, 0, 0)), Verdict::Continue);
        assert_eq!(sprt.verdict(&tally(3, 0, 1)), Verdict::Continue);
        assert_eq!(sprt.verdict(&tally(160, 20, 60)), Verdict::AcceptH1);
        assert_eq!(sprt.verdict(&tally(100, 20, 120)), Verdict::AcceptH0);
        // Every game won: decided, but not after a handful of games.
        assert_eq!(sprt.verdict(&tally(5, 0, 0)), Verdict::Continue);
        assert_eq!(sprt.verdict(&tally(40, 0, 0)), Verdict::AcceptH1);
    }

    #[test]
    fn sprt_arguments_are_checked() {
        assert_eq!(Sprt::parse("0, 10, 0.1, 0.2").unwrap().beta, 0.2);
        assert!(Sprt::parse("10,0").is_err());
        assert!(Sprt::parse("0,10,0.6,0.1").is_err());
        assert!(Sprt::parse("0").is_err());
        assert!(Sprt::parse("a,b").is_err());
    }
}
