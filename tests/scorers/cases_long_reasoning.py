"""Long replies, written without reading the scorers' code: long chain-of-thought,
reasoning-model drafts, tables.

Verdicts as in cases_units_and_notation.py; tests/scorers/test_careful.py checks credit agreement on these.
"""

NUMERIC = [
    # 1 average speed
    (
        r"""### Step 1: Identify the given values
- Distance travelled: 234 km
- Time taken: 2 h 36 min

### Step 2: Convert the time to hours
36 min = 36/60 h = 0.6 h, so the total time is 2.6 h.

### Step 3: Compute the average speed
\[
v = \frac{d}{t} = \frac{234\ \text{km}}{2.6\ \text{h}} = 90\ \text{km/h}
\]

**Final answer: 90 km/h**""",
        "90",
        1.0,
    ),
    # 2 trapezoid area with verification after
    (
        r"""To find the area of the trapezoid I use
$$A = \frac{(b_1 + b_2)}{2} \cdot h$$
Here \(b_1 = 7\) m, \(b_2 = 13\) m and \(h = 5\) m.

1. Sum of the parallel sides: 7 + 13 = 20 m
2. Average of the bases: 20 / 2 = 10 m
3. Multiply by the height: 10 × 5 = 50

So the area is **50 m^2**.

Let me verify by splitting into a rectangle and two triangles: the rectangle is 7 × 5 = 35 m^2, and the extra 6 m of base forms triangles with total area ½ × 6 × 5 = 15 m^2. 35 + 15 = 50 ✓""",
        "50",
        1.0,
    ),
    # 3 compound interest with table
    (
        r"""We need \(A = P(1 + r)^t\) with \(P = 2000\), \(r = 0.05\), \(t = 3\).

Year-by-year:
| Year | Start | Interest (5%) | End |
|------|-------|---------------|-----|
| 1 | 2000.00 | 100.00 | 2100.00 |
| 2 | 2100.00 | 105.00 | 2205.00 |
| 3 | 2205.00 | 110.25 | 2315.25 |

Total interest earned = 315.25.

**The balance after 3 years is $2,315.25.**""",
        "2315.25",
        1.0,
    ),
    # 4 mean with verify section mentioning other stats
    (
        r"""Let me add the scores first: 14 + 22 + 9 + 31 + 19.

- 14 + 22 = 36
- 36 + 9 = 45
- 45 + 31 = 76
- 76 + 19 = 95

There are 5 scores, so the mean is 95 ÷ 5 = 19.

**Answer: 19**

Let me verify: the deviations from 19 are −5, +3, −10, +12, 0, which sum to 0 ✓. (The median would be 19 as well, and the range is 31 − 9 = 22, but the question only asks for the mean.)""",
        "19",
        1.0,
    ),
    # 5 handshakes, self-correction to right answer
    (
        r"""Each of the 11 people shakes hands with the other 10 people, so that gives 11 × 10 = 110 handshakes.

Wait, let me recheck — that counts every handshake twice (A shaking B's hand is the same handshake as B shaking A's). So I need to divide by 2:

\[
\binom{11}{2} = \frac{11 \times 10}{2} = 55
\]

The total number of handshakes is **55**.""",
        "55",
        1.0,
    ),
    # 6 diagonals, wrong (forgot to subtract sides)
    (
        r"""A 12-sided polygon has 12 vertices. A diagonal connects any two vertices, so the number of diagonals is the number of ways to choose 2 vertices from 12:

$$\binom{12}{2} = \frac{12 \cdot 11}{2} = 66$$

Therefore a dodecagon has **66 diagonals**.""",
        "54",
        0.0,
    ),
    # 7 range -> ambiguous
    (
        r"""Let's estimate how many buses are needed.

- Students: 540
- Each bus seats between 36 and 45 students depending on the model
- 540 / 45 = 12
- 540 / 36 = 15

Since we don't know exactly which bus model the school will rent, the number of buses needed is somewhere between 12 and 15.""",
        "13",
        "ambiguous",
    ),
    # 8 boxed dfrac
    (
        r"""We want \( P(\text{at least one head}) \) when flipping 3 fair coins.

The complement is "no heads", i.e. TTT, with probability
\[
\left(\tfrac{1}{2}\right)^3 = \tfrac{1}{8}.
\]

Hence
\[
P = 1 - \frac{1}{8} = \frac{7}{8}.
\]

\[
\boxed{\dfrac{7}{8}}
\]""",
        "0.875",
        1.0,
    ),
    # 9 scientific notation
    (
        r"""The bacteria population doubles every 20 minutes, and we start with 200 cells.

- After 20 min: 400
- After 40 min: 800
- After 60 min: 1600
- After 80 min: 3200
- After 100 min: 6400

100 minutes corresponds to 5 doublings, so \( N = 200 \times 2^{5} = 200 \times 32 \).

**Final answer:** \( N = 6.4 \times 10^{3} \) bacteria.""",
        "6400",
        1.0,
    ),
    # 10 negative change
    (
        r"""The temperature at noon was 8 °C and at midnight it was −15 °C.

Change = final − initial = (−15) − 8 = −23

So the temperature changed by **−23 °C** (a drop of 23 degrees).""",
        "-23",
        1.0,
    ),
    # 11 percent
    (
        r"""Out of 64 trials, 24 were successful.

Success rate = 24 / 64 = 0.375

Converting to a percentage: 0.375 × 100 = 37.5

The answer is 37.5%.""",
        "37.5",
        1.0,
    ),
    # 12 table total with thousands separator
    (
        r"""## Cost breakdown

| Item | Quantity | Unit price | Subtotal |
|------|----------|-----------|----------|
| Office chairs | 6 | $129 | $774 |
| Desk lamps | 8 | $34 | $272 |
| Whiteboards | 2 | $85 | $170 |
| Monitor arms | 7 | $38 | $266 |

Adding the subtotals:
- 774 + 272 = 1,046
- 1,046 + 170 = 1,216
- 1,216 + 266 = 1,482

**Total cost: $1,482**""",
        "1482",
        1.0,
    ),
    # 13 pipes, wrong method
    (
        r"""Pipe A fills the tank in 6 hours and pipe B fills it in 9 hours.

If both pipes run together, I'll average their times: (6 + 9) / 2 = 7.5.

So working together, the two pipes fill the tank in **7.5 hours**.""",
        "3.6",
        0.0,
    ),
    # 14 two roots -> ambiguous
    (
        r"""We solve \(x^2 - 16 = 0\).

Factor: \((x - 4)(x + 4) = 0\)

Setting each factor to zero:
- \(x - 4 = 0 \Rightarrow x = 4\)
- \(x + 4 = 0 \Rightarrow x = -4\)

**Answer: x = 4 or x = −4**""",
        "4",
        "ambiguous",
    ),
    # 15 R1-style think block
    (
        r"""<think>
I need to count the primes less than 60.
Let me list them: 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 — that's 10 so far.
Continue: 31, 37, 41, 43, 47 — that's 15.
Then 53, 59 — that's 17.
Check 49 = 7 × 7, not prime. 51 = 3 × 17, not prime. 57 = 3 × 19, not prime.
So 17 primes.
</think>

There are 17 prime numbers less than 60:

2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59

**Answer: 17**""",
        "17",
        1.0,
    ),
    # 16 verification mentions other numbers after the answer
    (
        r"""### Step 1: Find the width
Perimeter \(P = 2(l + w)\), so \(28 = 2(8 + w)\), giving \(14 = 8 + w\) and \(w = 6\).

### Step 2: Find the area
\(A = l \times w = 8 \times 6 = 48\)

**Answer: 48 square units**

---
*Let me verify:* with l = 8 and w = 6, the perimeter is 2(8 + 6) = 28 ✓. If I had mistakenly used w = 7 the area would be 56, and with w = 14 it would be 112, but neither satisfies the perimeter condition.""",
        "48",
        1.0,
    ),
    # 17 wrong square area
    (
        r"""The perimeter of the square is 52 cm.

Step 1: A square has 4 equal sides, but the perimeter formula for a rectangle is 2(l + w), so each side is 52 / 2 = 26 cm.
Step 2: Area = side² = 26² = 676 cm².

**Area = 676 cm²**

Verification: 26 × 26 = 676 ✓""",
        "169",
        0.0,
    ),
    # 18 Boyle's law
    (
        r"""Using Boyle's law at constant temperature:
\[
P_1 V_1 = P_2 V_2
\]
- \(P_1 = 3\ \text{atm}\)
- \(V_1 = 4\ \text{L}\)
- \(V_2 = 6\ \text{L}\)

\[
P_2 = \frac{P_1 V_1}{V_2} = \frac{3 \times 4}{6} = \frac{12}{6} = 2\ \text{atm}
\]

The new pressure is **2 atm**.""",
        "2",
        1.0,
    ),
    # 19 density
    (
        r"""Density is mass divided by volume.

- Mass: 540 g
- Volume: 200 cm³

ρ = 540 g ÷ 200 cm³ = 2.7 g/cm³

This matches the density of aluminium, which makes sense for the block described.

Final answer: 2.7 g/cm³""",
        "2.7",
        1.0,
    ),
    # 20 force with kg·m/s²
    (
        r"""Newton's second law: \( F = m a \).

Given \( m = 12\ \text{kg} \) and \( a = 3.5\ \text{m/s}^2 \):

$$F = 12 \times 3.5 = 42\ \text{kg·m/s}^2$$

Since 1 N = 1 kg·m/s², the net force is **42 N**.""",
        "42",
        1.0,
    ),
    # 21 median, with reference numbers after
    (
        r"""First, sort the data set:

12, 19, 20, 23, 24, 27, 31, 45

There are n = 8 values (even), so the median is the mean of the 4th and 5th values.

- 4th value: 23
- 5th value: 24

Median = (23 + 24) / 2 = 47 / 2 = **23.5**

(For reference, the mean is 201 / 8 = 25.125, which is higher because of the outlier 45.)""",
        "23.5",
        1.0,
    ),
    # 22 LCM
    (
        r"""Prime factorizations:
- 18 = 2 × 3²
- 24 = 2³ × 3

LCM takes the highest power of each prime: 2³ × 3² = 8 × 9 = 72.

The two lighthouses will flash together again after **72 seconds**.""",
        "72",
        1.0,
    ),
    # 23 GCD wrong
    (
        r"""Using the Euclidean algorithm on 84 and 126:

1. 126 = 1 × 84 + 42
2. 84 = 2 × 42 + 0

Hmm, but both numbers are divisible by 21 as well: 84 = 4 × 21 and 126 = 6 × 21. Since 4 and 6 still share a factor... I'll go with 21.

**GCD(84, 126) = 21**""",
        "42",
        0.0,
    ),
    # 24 self-correction from right to wrong
    (
        r"""To convert 0.7 hours to minutes, multiply by 60:

0.7 × 60 = 42 minutes.

Wait, let me recheck. 0.7 hours means 0 hours and 70 minutes, because the digits after the decimal point give the minutes.

So the final answer is **70 minutes**.""",
        "42",
        0.0,
    ),
    # 25 self-correction from wrong to right
    (
        r"""The jacket originally costs $45 and is on sale for 20% off.

Sale price = 45 − 20 = 25 dollars.

Hold on, that's wrong — 20% off doesn't mean subtracting 20 dollars. Let me redo it:
- Discount = 20% × 45 = 0.20 × 45 = 9
- Sale price = 45 − 9 = 36

**The sale price is $36.**""",
        "36",
        1.0,
    ),
    # 26 approximate range -> ambiguous
    (
        r"""Let's estimate the commute time.

- Distance: 28 km
- Average speed in traffic: between 37 and 42 km/h
- 28 / 42 × 60 = 40 minutes
- 28 / 37 × 60 ≈ 45.4 minutes

So the commute will take approximately 40–45 minutes.""",
        "42",
        "ambiguous",
    ),
    # 27 either/or -> ambiguous
    (
        r"""We're looking for a number of tiles that can be arranged in both 2 rows and 3 rows with none left over, between 15 and 25.

Multiples of 6 in that range: 18 and 24.

- 18 tiles: 2 rows of 9, or 3 rows of 6 ✓
- 24 tiles: 2 rows of 12, or 3 rows of 8 ✓

So the answer is either 18 or 24, depending on whether the problem intends the smallest such number.""",
        "18",
        "ambiguous",
    ),
    # 28 arithmetic series boxed
    (
        r"""The series is 5 + 9 + 13 + … + 81.

**Number of terms**
\[
a_n = a_1 + (n-1)d \;\Rightarrow\; 81 = 5 + (n-1)\cdot 4 \;\Rightarrow\; n - 1 = 19 \;\Rightarrow\; n = 20
\]

**Sum**
\[
S_{20} = \frac{n}{2}(a_1 + a_n) = \frac{20}{2}(5 + 81) = 10 \times 86 = 860
\]

\[
\boxed{860}
\]""",
        "860",
        1.0,
    ),
    # 29 geometric term
    (
        r"""The sequence is 3, 6, 12, 24, … so the first term is \(a = 3\) and the ratio is \(r = 2\).

The 8th term is
$$a_8 = a \cdot r^{7} = 3 \cdot 2^{7} = 3 \cdot 128 = 384.$$

Checking by listing: 3, 6, 12, 24, 48, 96, 192, 384 — the 8th entry is 384.

The 8th term is $384$.""",
        "384",
        1.0,
    ),
    # 30 combinations
    (
        r"""We need to choose a committee of 4 from 10 volunteers where order doesn't matter.

\[
\binom{10}{4} = \frac{10!}{4!\,6!} = \frac{10 \times 9 \times 8 \times 7}{4 \times 3 \times 2 \times 1} = \frac{5040}{24} = 210
\]

Note that if order mattered (e.g. chair, vice-chair, secretary, treasurer), it would be 5040 instead.

**There are 210 possible committees.**""",
        "210",
        1.0,
    ),
    # 31 arrangements of LEVEL
    (
        r"""The word LEVEL has 5 letters: L, E, V, E, L.

- L appears 2 times
- E appears 2 times
- V appears 1 time

Number of distinct arrangements:
$$\frac{5!}{2!\,2!\,1!} = \frac{120}{4} = 30$$

**Answer: 30**""",
        "30",
        1.0,
    ),
    # 32 BANANA wrong (forgot N repeats)
    (
        r"""BANANA has 6 letters: B, A, N, A, N, A.

The A's repeat 3 times, so we divide by 3!:

6! / 3! = 720 / 6 = 120

So there are **120** distinct arrangements.""",
        "60",
        0.0,
    ),
    # 33 fraction answer
    (
        r"""A bag has 5 red and 3 blue marbles. We draw one marble at random.

- Total marbles: 5 + 3 = 8
- Favorable outcomes (blue): 3

\[
P(\text{blue}) = \frac{3}{8}
\]

The probability of drawing a blue marble is \( \frac{3}{8} \).""",
        "0.375",
        1.0,
    ),
    # 34 Ohm's law
    (
        r"""**Given:** I = 0.25 A, R = 48 Ω

**Formula:** V = I × R

**Calculation:** V = 0.25 × 48 = 12

**Answer:** The voltage across the resistor is 12 V.""",
        "12",
        1.0,
    ),
    # 35 power
    (
        r"""### Step 1: Recall the power formula
For a resistor, \( P = \dfrac{V^2}{R} \).

### Step 2: Plug in
- \( V = 230\ \text{V} \)
- \( R = 529\ \Omega \)

\( V^2 = 230^2 = 52\,900 \)

### Step 3: Divide
\( P = \dfrac{52\,900}{529} = 100\ \text{W} \)

### Final answer
The bulb dissipates **100 W**.""",
        "100",
        1.0,
    ),
    # 36 kinetic energy in scientific notation
    (
        r"""Kinetic energy:
\[
KE = \tfrac{1}{2} m v^2
\]
with \( m = 1500\ \text{kg} \) and \( v = 20\ \text{m/s} \).

- \( v^2 = 400\ \text{m}^2/\text{s}^2 \)
- \( \tfrac{1}{2} \times 1500 = 750 \)
- \( 750 \times 400 = 300\,000 \)

\[
KE = 3.0 \times 10^{5}\ \text{J}
\]""",
        "300000",
        1.0,
    ),
    # 37 ideal gas wrong (Celsius used)
    (
        r"""Using the ideal gas law \( PV = nRT \):

- \( P = 2.0 \) atm
- \( V = 25.0 \) L
- \( T = 24 \) °C
- \( R = 0.0821 \) L·atm/(mol·K)

\[
n = \frac{PV}{RT} = \frac{2.0 \times 25.0}{0.0821 \times 24} = \frac{50.0}{1.970} \approx 25.4
\]

**n ≈ 25.4 mol**""",
        "2.05",
        0.0,
    ),
    # 38 age problem, check mentions other numbers
    (
        r"""Let the son's current age be \(s\). Then Maria's age is \(3s\).

In 14 years:
- Son: \(s + 14\)
- Maria: \(3s + 14\)

Condition: \(3s + 14 = 2(s + 14)\)

\(3s + 14 = 2s + 28\)

\(s = 14\)

So the son is **14 years old** now (and Maria is 42).

Check: in 14 years the son is 28 and Maria is 56, and 56 = 2 × 28 ✓""",
        "14",
        1.0,
    ),
    # 39 work rate
    (
        r"""Let's work with rates (fences per hour):

- Anna: 1/20
- Ben: 1/30

Combined rate:
$$\frac{1}{20} + \frac{1}{30} = \frac{3}{60} + \frac{2}{60} = \frac{5}{60} = \frac{1}{12}$$

So together they paint one fence in 12 hours.

**Answer: 12 hours**""",
        "12",
        1.0,
    ),
    # 40 two roots given -> ambiguous
    (
        r"""Using the quadratic formula on \(x^2 - x - 3 = 0\):

\[
x = \frac{1 \pm \sqrt{1 + 12}}{2} = \frac{1 \pm \sqrt{13}}{2}
\]

With \(\sqrt{13} \approx 3.606\):

- \(x_1 = (1 + 3.606)/2 \approx 2.30\)
- \(x_2 = (1 - 3.606)/2 \approx -1.30\)

**The solutions are x ≈ 2.30 and x ≈ −1.30.**""",
        "2.3",
        "ambiguous",
    ),
    # 41 short unit conversion
    (r"""1 km = 1000 m, so 2.5 km = 2.5 × 1000 m = **2,500 m**.""", "2500", 1.0),
    # 42 km/h to m/s
    (
        r"""To convert km/h to m/s, multiply by 1000/3600 = 5/18.

\[
54\ \text{km/h} \times \frac{5}{18} = \frac{270}{18} = 15\ \text{m/s}
\]

**15 m/s**""",
        "15",
        1.0,
    ),
    # 43 wrong conversion direction
    (
        r"""To convert from km/h to m/s we multiply by 3.6:

54 × 3.6 = 194.4

So the cyclist's speed is **194.4 m/s**.""",
        "15",
        0.0,
    ),
    # 44 large number with commas
    (
        r"""The town's population grows by 7% from 1,200,000.

- Increase: 0.07 × 1,200,000 = 84,000
- New population: 1,200,000 + 84,000 = 1,284,000

**Answer: 1,284,000 people**""",
        "1284000",
        1.0,
    ),
    # 45 percentage decrease
    (
        r"""Original price: 80
New price: 62
Decrease: 80 − 62 = 18

Percentage decrease = (18 / 80) × 100% = 0.225 × 100% = 22.5%

The price fell by **22.5%**.""",
        "22.5",
        1.0,
    ),
    # 46 ratio split
    (
        r"""The $640 is split in the ratio 3 : 5.

- Total parts: 3 + 5 = 8
- Value of one part: 640 ÷ 8 = 80
- Smaller share: 3 × 80 = 240
- Larger share: 5 × 80 = 400

The larger share is **$400**.""",
        "400",
        1.0,
    ),
    # 47 ratio split wrong share
    (
        r"""Total parts = 3 + 5 = 8, and each part is worth 640 / 8 = 80.

Taking the first part of the ratio: 3 × 80 = 240.

**The larger share is $240.**""",
        "400",
        0.0,
    ),
    # 48 pentagon interior angle boxed with degrees
    (
        r"""The sum of interior angles of an n-gon is \((n - 2) \times 180^\circ\).

For a pentagon, \(n = 5\):
\[
(5 - 2) \times 180^\circ = 540^\circ
\]

Since the pentagon is regular, all 5 angles are equal:
\[
\frac{540^\circ}{5} = 108^\circ
\]

Each interior angle measures \(\boxed{108^\circ}\).""",
        "108",
        1.0,
    ),
    # 49 third angle
    (
        r"""The angles of a triangle add up to 180°.

Known angles: 47° and 68°.

47 + 68 = 115

180 − 115 = 65

**The third angle is 65°.**""",
        "65",
        1.0,
    ),
    # 50 Pythagoras
    (
        r"""The support cable, the mast and the ground form a right triangle with legs 9 m and 40 m.

c² = 9² + 40² = 81 + 1600 = 1681

c = √1681 = 41

The cable is **41 m** long.""",
        "41",
        1.0,
    ),
    # 51 wrong hypotenuse
    (
        r"""For legs of 7 and 24, the hypotenuse is the longest side, so I'll just add the two legs together:

7 + 24 = 31

**Hypotenuse = 31**""",
        "25",
        0.0,
    ),
    # 52 circle area with verify mentioning decimal
    (
        r"""Using \( A = \pi r^2 \) with \( \pi \approx \tfrac{22}{7} \) and \( r = 7 \) cm:

\[
A = \frac{22}{7} \times 7^2 = \frac{22}{7} \times 49 = 22 \times 7 = 154
\]

The area of the circular plate is **154 cm²**.

Let me verify: using π = 3.14159 gives 153.94 cm², which rounds to 154 ✓.""",
        "154",
        1.0,
    ),
    # 53 cylinder volume
    (
        r"""Volume of a cylinder: \( V = \pi r^2 h \).

- \( r = 3 \) cm
- \( h = 10 \) cm

\( V = \pi \times 9 \times 10 = 90\pi \)

\( 90\pi \approx 90 \times 3.14159 = 282.74 \)

**V ≈ 282.74 cm³**""",
        "282.74",
        1.0,
    ),
    # 54 range -> ambiguous
    (
        r"""The can is roughly a cylinder with radius about 3 cm and height about 10 cm.

V = πr²h ≈ 3.14 × 9 × 10 ≈ 283 cm³, but since the can has a rim and the measurements are approximate, the volume is roughly 275 to 290 cm³.""",
        "282.74",
        "ambiguous",
    ),
    # 55 mode with table
    (
        r"""Data: 3, 7, 2, 7, 9, 4, 7, 2, 9, 5

Frequency count:
| Value | Count |
|-------|-------|
| 2 | 2 |
| 3 | 1 |
| 4 | 1 |
| 5 | 1 |
| 7 | 3 |
| 9 | 2 |

The value 7 occurs most often (3 times).

**Mode = 7**""",
        "7",
        1.0,
    ),
    # 56 paper folding
    (
        r"""Each time the paper is folded, the number of layers doubles.

After 10 folds: 2^{10} = 1024 layers.

Answer: 1024""",
        "1024",
        1.0,
    ),
    # 57 log base 2
    (
        r"""We want \( \log_2 512 \).

Since \( 2^9 = 512 \) (2, 4, 8, 16, 32, 64, 128, 256, 512), we get

$$\log_2 512 = 9$$

**Answer:** $9$""",
        "9",
        1.0,
    ),
    # 58 log sign error
    (
        r"""\( \log_{10}(0.001) \): we need the power of 10 that gives 0.001.

0.001 has three decimal places, so the exponent is 3.

\[
\log_{10}(0.001) = 3
\]

**Answer: 3**""",
        "-3",
        0.0,
    ),
    # 59 derivative, check after boxed mentions other numbers
    (
        r"""### Step 1: Differentiate
\( f(x) = x^3 - 4x \)

\( f'(x) = 3x^2 - 4 \)

### Step 2: Evaluate at \( x = 2 \)
\( f'(2) = 3(2)^2 - 4 = 3 \cdot 4 - 4 = 12 - 4 = 8 \)

The slope of the tangent line at \( x = 2 \) is \( \boxed{8} \).

*Check:* \( f(2) = 8 - 8 = 0 \), so the tangent line is \( y = 8(x - 2) = 8x - 16 \).""",
        "8",
        1.0,
    ),
    # 60 definite integral
    (
        r"""\[
\int_0^3 (2x + 1)\,dx = \left[x^2 + x\right]_0^3 = (9 + 3) - (0 + 0) = 12
\]

**Final Answer: 12**""",
        "12",
        1.0,
    ),
    # 61 limit
    (
        r"""Direct substitution gives 0/0, so factor the numerator:

\[
\frac{x^2 - 9}{x - 3} = \frac{(x-3)(x+3)}{x-3} = x + 3 \quad (x \neq 3)
\]

Now take the limit:
\[
\lim_{x \to 3} (x + 3) = 3 + 3 = 6
\]

So the limit is **6**.""",
        "6",
        1.0,
    ),
    # 62 limit hedge -> ambiguous
    (
        r"""Plugging in x = 3 gives 0/0, which is indeterminate.

If we cancel the (x − 3) factor we get x + 3 → 6. But some textbooks say that since the function is undefined at 3 the limit should be evaluated as 3 from the remaining factor.

So the answer is either 6 or 3; I'm not certain which convention is intended.""",
        "6",
        "ambiguous",
    ),
    # 63 integral wrong (dropped the x term)
    (
        r"""Integrating term by term:

∫(2x + 1) dx = x² + x

Evaluating from 0 to 3: 3² = 9.

**Answer: 9**""",
        "12",
        0.0,
    ),
    # 64 no answer
    (
        r"""To find the average speed for the whole trip we need the total distance and the total time. The problem gives the speed for the first leg but doesn't clearly state how long the second leg took, so I can't determine a unique value without more information. Could you clarify the duration of the return journey?""",
        "75",
        0.0,
    ),
    # 65 making change
    (
        r"""Items purchased:
- Notebook: $4.25
- Pens: $2.80
- Eraser: $0.95
- Folder: $3.35

Total = 4.25 + 2.80 + 0.95 + 3.35 = $11.35

Paid with $15.00.

Change = 15.00 − 11.35 = **$3.65**""",
        "3.65",
        1.0,
    ),
    # 66 determinant
    (
        r"""For \( A = \begin{pmatrix} 3 & 5 \\ 2 & -4 \end{pmatrix} \):

\[
\det(A) = (3)(-4) - (5)(2) = -12 - 10 = -22
\]

\[
\boxed{-22}
\]""",
        "-22",
        1.0,
    ),
    # 67 determinant wrong sign
    (
        r"""det = ad − bc = (3)(−4) − (5)(2)

= −12 + 10 = −2

**det(A) = −2**""",
        "-22",
        0.0,
    ),
    # 68 "3 or 4 hours" -> ambiguous
    (
        r"""The hike is 14 km and a typical walking pace on hilly terrain is 3.5–4.5 km/h.

14 / 4 = 3.5 hours, but with breaks it could be longer.

I'd say the hike takes about 3 or 4 hours.""",
        "3.5",
        "ambiguous",
    ),
    # 69 two interpretations -> ambiguous
    (
        r"""We're forming 3-digit codes from the digits 1–6.

- Without repetition: 6 × 5 × 4 = 120
- With repetition: 6 × 6 × 6 = 216

The problem doesn't specify, so the answer is 120 (no repetition) or 216 (repetition allowed).""",
        "120",
        "ambiguous",
    ),
    # 70 Llama-style final answer
    (
        r"""## Step 1: Add the four test scores
12 + 15 + 20 + 23 = 70

## Step 2: Divide by the number of scores
70 / 4 = 17.5

The final answer is: $\boxed{17.5}$""",
        "17.5",
        1.0,
    ),
    # 71 proportion, verify section mentions other quantities
    (
        r"""This is a direct proportion.

- 4 cookies → 100 g of sugar
- 1 cookie → 100 / 4 = 25 g
- 10 cookies → 25 × 10 = 250 g

**Answer: 250 g**

Let me verify using a ratio: 100/4 = x/10 ⇒ 4x = 1000 ⇒ x = 250 ✓. For a dozen cookies you'd need 300 g, and for 20 cookies 500 g.""",
        "250",
        1.0,
    ),
]


MULTIPLE_CHOICE = [
    # 1 Vitamin D, letters inside option texts
    (
        r"""Let's consider each option:

- **A) Vitamin A** – obtained from diet (retinol, beta-carotene); not synthesized in skin.
- **B) Vitamin C** – humans cannot synthesize it at all; must come from food.
- **C) Vitamin D** – synthesized in the skin when UVB light converts 7-dehydrocholesterol to cholecalciferol.
- **D) Vitamin K** – produced partly by gut bacteria, not by sunlight.

The vitamin made in the skin on sun exposure is Vitamin D, which is option **C**.""",
        "C",
        1.0,
        ("Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"),
    ),
    # 2 option text only
    (
        r"""Sunlight (specifically UVB radiation) triggers the skin to convert 7-dehydrocholesterol into previtamin D3, which then becomes cholecalciferol. None of the other vitamins listed are produced this way.

**Answer: Vitamin D**""",
        "C",
        1.0,
        ("Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"),
    ),
    # 3 wrong
    (
        r"""Vitamin K is synthesized by bacteria in the large intestine, and sun exposure activates many metabolic processes in the skin. Vitamin A and C are purely dietary.

ANSWER: D""",
        "C",
        0.0,
        ("Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"),
    ),
    # 4 Type I error
    (
        r"""A Type I error is a "false positive": we conclude there is an effect when there isn't one.

- (A) Rejecting a true null hypothesis → this is exactly the Type I error, with probability α.
- (B) Failing to reject a false null hypothesis → that's a Type II error (probability β).
- (C) Rejecting a false null hypothesis → correct decision (power = 1 − β).
- (D) Accepting the alternative when it is true → also a correct decision.

ANSWER: A""",
        "A",
        1.0,
        (
            "Rejecting a true null hypothesis",
            "Failing to reject a false null hypothesis",
            "Rejecting a false null hypothesis",
            "Accepting the alternative hypothesis when it is true",
        ),
    ),
    # 5 Type II error with table
    (
        r"""We want the definition of a **Type II error**.

Recall the decision table:

| | H₀ true | H₀ false |
|---|---|---|
| Reject H₀ | Type I error | Correct |
| Fail to reject H₀ | Correct | Type II error |

So a Type II error occurs when H₀ is false but we fail to reject it. Option A describes a Type I error, so that's not it, and C and D are correct decisions.

The correct option is (B).""",
        "B",
        1.0,
        (
            "Rejecting a true null hypothesis",
            "Failing to reject a false null hypothesis",
            "Rejecting a false null hypothesis",
            "Accepting the alternative hypothesis when it is true",
        ),
    ),
    # 6 negated letters then final
    (
        r"""The additive primary colors of light are red, green and blue (RGB).

- Red is a primary of light, so it's not A.
- Green is also a primary — that rules out B.
- Blue completes the RGB set, which rules out C.
- Yellow is produced by mixing red and green light; it's a primary only in the subtractive (pigment) model.

The correct option is (D).""",
        "D",
        1.0,
        ("Red", "Green", "Blue", "Yellow"),
    ),
    # 7 wrong, negations then bare bold letter
    (
        r"""In painting we learn that the primary colors are red, yellow and blue. Green is made by mixing blue and yellow, so it isn't primary.

Not A, not C, not D — the one that is NOT a primary color is green.

**B**""",
        "D",
        0.0,
        ("Red", "Green", "Blue", "Yellow"),
    ),
    # 8 World War II
    (
        r"""World War II began in 1939 with Germany's invasion of Poland (that's option B, the start date, not the end). World War I ended in 1918 (option A). The war ended in 1945 — Germany surrendered in May and Japan in September 1945.

So World War II ended in 1945, which is **(C)**.""",
        "C",
        1.0,
        ("1918", "1939", "1945", "1950"),
    ),
    # 9 binary search
    (
        r"""Binary search halves the search space on every comparison.

- After 1 step: n/2 elements remain
- After 2 steps: n/4
- After k steps: n/2^k

We stop when n/2^k = 1, i.e. k = log₂ n.

So:
- O(n) would be linear search — not this.
- O(n^2) is typical of naive nested loops — no.
- O(1) would require direct indexing — no.

The worst-case time complexity of binary search is O(log n).

**Answer: B**""",
        "B",
        1.0,
        ("O(n)", "O(log n)", "O(n^2)", "O(1)"),
    ),
    # 10 bubble sort wrong
    (
        r"""Bubble sort makes a pass over the array and stops early if no swaps were made. In the worst case it only needs a single pass to detect this, so its worst-case running time is linear.

The answer is (A) O(n).""",
        "C",
        0.0,
        ("O(n)", "O(log n)", "O(n^2)", "O(1)"),
    ),
    # 11 Ohm's law, "10 A"
    (
        r"""Using Ohm's law, I = V / R.

- V = 120 V
- R = 12 Ω

I = 120 / 12 = 10 A

Checking the options: 2 A (A) would need 60 Ω, 5 A (B) would need 24 Ω, and 20 A (D) would need 6 Ω. Only 10 A matches.

**C. 10 A**""",
        "C",
        1.0,
        ("2 A", "5 A", "10 A", "20 A"),
    ),
    # 12 either B or D -> ambiguous
    (
        r"""Both statements (B) and (D) seem consistent with the passage: the author criticizes the policy in paragraph 2 but also acknowledges its benefits in paragraph 4. Option A is too extreme and C contradicts the conclusion.

The answer is either (B) or (D).""",
        "B",
        "ambiguous",
        None,
    ),
    # 13 self-correction to right
    (
        r"""Oxygen is essential for breathing and is the most abundant... so the answer is A.

Wait, let me recheck. Earth's atmosphere is about 78% nitrogen, 21% oxygen, 0.93% argon and about 0.04% carbon dioxide. Oxygen is only the second most abundant.

So the correct answer is **B) Nitrogen**.""",
        "B",
        1.0,
        ("Oxygen", "Nitrogen", "Carbon dioxide", "Argon"),
    ),
    # 14 self-correction to wrong
    (
        r"""On the Mohs scale, diamond is a 10, corundum 9, topaz 8 and quartz 7. So the answer looks like C.

Hmm, wait — I remember that corundum is used in industrial abrasives and sapphire is extremely hard, so maybe it's actually harder in practice. Let me reconsider… I'll go with corundum.

Final answer: D""",
        "C",
        0.0,
        ("Quartz", "Topaz", "Diamond", "Corundum"),
    ),
    # 15 DNA, lowercase letter
    (
        r"""The question asks which molecule stores hereditary information in nearly all living organisms.

- ATP is the cell's energy currency.
- DNA (deoxyribonucleic acid) encodes genes in its nucleotide sequence.
- Glucose is a sugar used for energy.
- Cholesterol is a lipid in membranes and a steroid precursor.

Answer: (b)""",
        "B",
        1.0,
        ("ATP", "DNA", "Glucose", "Cholesterol"),
    ),
    # 16 no choices, evaluates all letters
    (
        r"""Let's evaluate the function at each of the given points.

f(x) = 2x² − 3x + 1

- (A) x = 0: f(0) = 1
- (B) x = 1: f(1) = 2 − 3 + 1 = 0
- (C) x = 2: f(2) = 8 − 6 + 1 = 3
- (D) x = 3: f(3) = 18 − 9 + 1 = 10

The question asks for the input that gives f(x) = 3. Therefore the answer is C.""",
        "C",
        1.0,
        None,
    ),
    # 17 A or C -> ambiguous
    (
        r"""Option A fits the first clue and option C fits the second. Without more information I can't say which is intended — it's A or C.""",
        "A",
        "ambiguous",
        None,
    ),
    # 18 every option discussed
    (
        r"""- **A (Mitochondrion)** is incorrect because mitochondria perform cellular respiration, not photosynthesis.
- **B (Nucleus)** is incorrect because it stores genetic material.
- **C (Chloroplast)** is correct: it contains chlorophyll and carries out the light-dependent and light-independent (Calvin cycle) reactions.
- **D (Ribosome)** is incorrect because ribosomes synthesize proteins.

Final answer: C""",
        "C",
        1.0,
        ("Mitochondrion", "Nucleus", "Chloroplast", "Ribosome"),
    ),
    # 19 fiscal policy wrong
    (
        r"""Fiscal vs monetary policy can be confusing. Open market operations involve the government buying and selling bonds, which directly affects the budget. Changing the discount rate and reserve requirements are tools of the central bank. Government spending is decided by the legislature, which is more about politics than policy tools.

So the fiscal policy tool here is **(A) Open market operations**.""",
        "C",
        0.0,
        (
            "Open market operations",
            "Changing the discount rate",
            "Changing government spending",
            "Changing reserve requirements",
        ),
    ),
    # 20 fiscal policy right
    (
        r"""### Fiscal vs. monetary policy
- **Monetary policy** is run by the central bank (e.g. the Federal Reserve): open market operations, the discount rate, reserve requirements.
- **Fiscal policy** is run by the government: taxation and government spending.

Options A, B and D are therefore all monetary tools. Only option C, changing government spending, is a fiscal tool.

**Answer: C**""",
        "C",
        1.0,
        (
            "Open market operations",
            "Changing the discount rate",
            "Changing government spending",
            "Changing reserve requirements",
        ),
    ),
    # 21 no answer
    (
        r"""Let me compute: 3/4 + 2/3 = 9/12 + 8/12 = 17/12 ≈ 1.42.

Looking at the options, none of them seems to match what I computed, so I believe there is an error in the question. None of the options is correct.""",
        "B",
        0.0,
        None,
    ),
    # 22 Canberra
    (
        r"""Many people assume Sydney (A) is the capital because it's the largest city, and Melbourne (B) served as the temporary seat of government from 1901 to 1927. However, Canberra was purpose-built as the capital as a compromise between those two cities. Perth (D) is the capital of Western Australia only.

The capital of Australia is Canberra (C).""",
        "C",
        1.0,
        ("Sydney", "Melbourne", "Canberra", "Perth"),
    ),
    # 23 two answers -> ambiguous
    (
        r"""Check each number for divisibility:

- 29: not divisible by 2, 3, or 5 → prime
- 39 = 3 × 13 → not prime
- 49: not divisible by 2, 3 or 5 → prime
- 51 = 3 × 17 → not prime

The answer is A and C.""",
        "A",
        "ambiguous",
        ("29", "39", "49", "51"),
    ),
    # 24 pH
    (
        r"""At 25 °C, pure water self-ionizes so that [H⁺] = [OH⁻] = 1.0 × 10⁻⁷ M.

pH = −log₁₀(1.0 × 10⁻⁷) = 7

A pH of 0 or 1 would be strongly acidic and 14 strongly basic.

The correct option is (B) 7.""",
        "B",
        1.0,
        ("0", "7", "14", "1"),
    ),
    # 25 option text only
    (
        r"""*Pride and Prejudice* (1813) follows Elizabeth Bennet and Mr. Darcy. Charlotte Brontë wrote *Jane Eyre*, George Eliot wrote *Middlemarch*, and Mary Shelley wrote *Frankenstein*.

The author is **Jane Austen**.""",
        "B",
        1.0,
        ("Charlotte Brontë", "Jane Austen", "George Eliot", "Mary Shelley"),
    ),
    # 26 SI unit, bare bold letter
    (
        r"""Force has dimensions of mass × acceleration, i.e. kg·m/s².

- Joule = kg·m²/s² (energy) ✗
- Watt = kg·m²/s³ (power) ✗
- Newton = kg·m/s² ✓
- Pascal = kg/(m·s²) (pressure) ✗

**C**""",
        "C",
        1.0,
        ("Joule", "Watt", "Newton", "Pascal"),
    ),
    # 27 All of the above
    (
        r"""Solar energy (A) is replenished daily by the Sun. Wind (B) is driven by solar heating of the atmosphere and is continuously renewed. Geothermal energy (C) comes from the Earth's internal heat, which is effectively inexhaustible on human timescales.

Since A, B and C are all renewable, the best answer is **D) All of the above**.""",
        "D",
        1.0,
        ("Solar", "Wind", "Geothermal", "All of the above"),
    ),
    # 28 five options, E
    (
        r"""The noble gases are in group 18: He, Ne, Ar, Kr, Xe, Rn.

- A: Helium — noble gas
- B: Neon — noble gas
- C: Argon — noble gas
- D: Krypton — noble gas
- E: Nitrogen — group 15, a diatomic reactive nonmetal

ANSWER: E""",
        "E",
        1.0,
        ("Helium", "Neon", "Argon", "Krypton", "Nitrogen"),
    ),
    # 29 five options wrong
    (
        r"""Rotation periods (sidereal):
- Mercury: about 59 Earth days
- Earth: about 24 hours
- Mars: about 24.6 hours
- Jupiter: about 10 hours

Mercury is closest to the Sun and is tidally slowed, so it has the longest rotation period of these.

ANSWER: A""",
        "E",
        0.0,
        ("Mercury", "Earth", "Mars", "Jupiter", "Venus"),
    ),
    # 30 table then bold answer
    (
        r"""| Option | Structure | Ordering |
|---|---|---|
| A | Queue | FIFO (first in, first out) |
| B | Stack | LIFO (last in, first out) |
| C | Heap | Priority-based |
| D | Graph | No inherent ordering |

**Answer: B**""",
        "B",
        1.0,
        ("Queue", "Stack", "Heap", "Graph"),
    ),
    # 31 R1 think block
    (
        r"""<think>
Largest country by area. Russia is about 17.1 million km². Canada is about 9.98 million km². China about 9.6, United States about 9.8 (depending on whether water is included). So Canada is B, second. China C and US D are close to each other. Russia A is clearly the largest.
</think>

Russia, at roughly 17.1 million km², is by far the largest country by land area — nearly double Canada (B).

**A**""",
        "A",
        1.0,
        ("Russia", "Canada", "China", "United States"),
    ),
    # 32 can't decide -> ambiguous
    (
        r"""'Ephemeral' means lasting a very short time.

- Permanent — opposite meaning ✗
- Fleeting — lasting a short time ✓
- Transient — also lasting a short time ✓
- Ancient — very old ✗

Both fleeting and transient fit the definition, so it's B or C — I can't decide between them.""",
        "B",
        "ambiguous",
        ("Permanent", "Fleeting", "Transient", "Ancient"),
    ),
    # 33 narrows to two without committing -> ambiguous
    (
        r"""Looking at the graph, the velocity is decreasing, so the acceleration is negative — it's definitely not A or D, which both describe speeding up.

Between B and C: B says the object is slowing at a constant rate, and C says the object is slowing and its deceleration is decreasing. The curve looks roughly straight but could be slightly concave. Both seem valid readings of the graph.""",
        "C",
        "ambiguous",
        None,
    ),
    # 34 percent
    (
        r"""15% of 240:

- 10% of 240 = 24
- 5% of 240 = 12
- 15% = 24 + 12 = 36

**The answer is B.**""",
        "B",
        1.0,
        ("32", "36", "40", "48"),
    ),
    # 35 option value only
    (
        r"""0.15 × 240 = 36

Answer: 36""",
        "B",
        1.0,
        ("32", "36", "40", "48"),
    ),
    # 36 Nile
    (
        r"""The Nile flows about 6,650 km from its sources in East Africa to the Mediterranean, making it the longest river in Africa (and traditionally in the world). The Congo is about 4,700 km, the Niger about 4,180 km and the Zambezi about 2,574 km.

The correct option is (C).""",
        "C",
        1.0,
        ("Congo", "Niger", "Nile", "Zambezi"),
    ),
    # 37 blood types with capital letters in options
    (
        r"""Let's think about which red cells can be given to anyone.

- A+ has A antigens and Rh(D) — would react with type B or O recipients.
- AB+ has A, B and Rh antigens — that's the **universal recipient**, not donor.
- O- has no A, B or Rh(D) antigens — can be given to any recipient.
- B- has B antigens — would react with type A or O recipients.

The universal red cell donor is O-, i.e. option **C**.""",
        "C",
        1.0,
        ("A+", "AB+", "O-", "B-"),
    ),
    # 38 blood types wrong
    (
        r"""Type AB blood has both A and B antigens, so it is compatible with all ABO groups, and Rh-positive means it also covers Rh. That makes AB+ the universal type.

The answer is B.""",
        "C",
        0.0,
        ("A+", "AB+", "O-", "B-"),
    ),
    # 39 HTTPS
    (
        r"""Default ports:
- HTTP → 80
- FTP → 21 (control), 20 (data)
- HTTPS → 443
- SSH → 22

Port 443 is used by HTTPS, so the answer is **(C) HTTPS**.""",
        "C",
        1.0,
        ("HTTP", "FTP", "HTTPS", "SSH"),
    ),
    # 40 piano
    (
        r"""A standard modern piano has 52 white keys and 36 black keys.

52 + 36 = 88

Some older or digital instruments have 76 or 61 keys, and a few Bösendorfer models have 92 or 97, but the standard count is 88.

Correct option: C""",
        "C",
        1.0,
        ("76", "84", "88", "92"),
    ),
    # 41 wrong planet
    (
        r"""Venus is the closest planet to Earth and the hottest planet in the solar system, so it is also the planet closest to the Sun.

**Answer: (A) Venus**""",
        "B",
        0.0,
        ("Venus", "Mercury", "Mars", "Earth"),
    ),
    # 42 Magna Carta
    (
        r"""Let's place each date:
- 1066 — Norman Conquest (Battle of Hastings)
- 1215 — King John seals the Magna Carta at Runnymede
- 1492 — Columbus reaches the Americas
- 1776 — US Declaration of Independence

The Magna Carta dates from 1215.

The correct option is (B).""",
        "B",
        1.0,
        ("1066", "1215", "1492", "1776"),
    ),
    # 43 sodium symbol
    (
        r"""The symbol for sodium comes from its Latin name *natrium*. "S" is the symbol for sulfur, and "So" and "Sd" are not element symbols at all.

Sodium = **Na**, option C.""",
        "C",
        1.0,
        ("S", "So", "Na", "Sd"),
    ),
    # 44 syllogism with letters used as variables
    (
        r"""Let B = bloops, R = razzies, L = lazzies.

Premises:
1. All B are R.
2. No R are L.

From 1 and 2: every B is an R, and no R is an L, so no B can be an L.

- (A) All L are B — not supported; in fact no L is B.
- (B) Some B are L — contradicts the conclusion.
- (C) Some R are B — only true if at least one B exists, which isn't guaranteed.
- (D) No B are L — follows necessarily.

ANSWER: D""",
        "D",
        1.0,
        (
            "All lazzies are bloops",
            "Some bloops are lazzies",
            "Some razzies are bloops",
            "No bloops are lazzies",
        ),
    ),
    # 45 ohm
    (
        r"""Resistance is measured in ohms (Ω), defined as one volt per ampere. Ampere is the unit of current, volt of potential difference, and coulomb of charge.

The correct answer is (C).""",
        "C",
        1.0,
        ("Ampere", "Volt", "Ohm", "Coulomb"),
    ),
    # 46 C or D -> ambiguous
    (
        r"""Option (C) correctly identifies the main cause described in the passage: the collapse of grain prices.

Actually, (D) could also be correct, since the passage mentions the drought in the same paragraph as a contributing factor.

Final: C or D.""",
        "C",
        "ambiguous",
        None,
    ),
    # 47 verification after answer mentions other letters
    (
        r"""The skin covers roughly 1.5–2 m² and weighs about 3.5–4 kg in an adult, which makes it the largest organ overall.

The correct option is (A).

Let me verify: the liver (B) is the largest *internal* organ at about 1.5 kg, the brain (C) weighs about 1.4 kg, and the lungs (D) together weigh about 1.3 kg. So none of B, C or D exceed the skin ✓""",
        "A",
        1.0,
        ("Skin", "Liver", "Brain", "Lungs"),
    ),
    # 48 bare letter
    (r"""B""", "B", 1.0, None),
    # 49 bare lowercase letter with period
    (r"""d.""", "D", 1.0, None),
    # 50 no choices, letter with value
    (
        r"""a = Δv / Δt = (18 m/s − 6 m/s) / 8 s = 12 / 8 = 1.5 m/s²

That matches **(D) 1.5 m/s²**.""",
        "D",
        1.0,
        None,
    ),
    # 51 no choices, wrong
    (
        r"""a = Δv / Δt = 18 / 8 = 2.25 m/s²

So the answer is (A) 2.25 m/s².""",
        "D",
        0.0,
        None,
    ),
    # 52 conjunction
    (
        r"""- *quickly* — adverb
- *although* — subordinating conjunction ("Although it rained, we went out.")
- *beneath* — preposition
- *happiness* — noun

The correct option is (B).""",
        "B",
        1.0,
        ("quickly", "although", "beneath", "happiness"),
    ),
    # 53 mitochondrion with ATP/DNA capitals in reasoning
    (
        r"""### Reasoning
The question asks where most ATP is produced through aerobic respiration.

- **Nucleus** – houses DNA and controls gene expression; no ATP synthesis via respiration.
- **Mitochondrion** – site of the Krebs cycle and the electron transport chain; produces ~30–32 ATP per glucose.
- **Ribosome** – translates mRNA into protein.
- **Golgi apparatus** – modifies and packages proteins.

### Answer
**B — Mitochondrion**""",
        "B",
        1.0,
        ("Nucleus", "Mitochondrion", "Ribosome", "Golgi apparatus"),
    ),
    # 54 Kepler wrong
    (
        r"""The three famous laws were formulated in the early 17th century to describe motion. Kepler published his three laws in 1609 and 1619, describing how planets move in ellipses, sweep equal areas and obey the T² ∝ a³ relationship. Newton later built on them.

Therefore the answer is (C) Johannes Kepler.""",
        "B",
        0.0,
        ("Galileo Galilei", "Isaac Newton", "Johannes Kepler", "Albert Einstein"),
    ),
    # 55 Newton right
    (
        r"""Galileo (A) studied inertia and falling bodies but didn't formulate the three laws. Kepler (C) gave the laws of *planetary* motion, and Einstein (D) developed relativity. The three laws of motion appear in Newton's *Principia* (1687).

**Answer: (B) Isaac Newton**""",
        "B",
        1.0,
        ("Galileo Galilei", "Isaac Newton", "Johannes Kepler", "Albert Einstein"),
    ),
    # 56 quicksort worst case, "not B"
    (
        r"""Quicksort's **average** case is O(n log n), which is why B is tempting. But the question asks for the **worst** case: when the pivot is always the smallest or largest element (e.g. already-sorted input with first-element pivot), each partition only removes one element:

T(n) = T(n − 1) + O(n) ⇒ T(n) = O(n^2)

So not B — the worst case is O(n^2).

The correct option is (C).""",
        "C",
        1.0,
        ("O(n)", "O(n log n)", "O(n^2)", "O(log n)"),
    ),
    # 57 quicksort wrong
    (
        r"""Quicksort divides the array around a pivot and recursively sorts the two halves. Each level of recursion does O(n) work and there are log n levels, giving O(n log n). That's why quicksort is considered one of the fastest sorting algorithms.

**B**""",
        "C",
        0.0,
        ("O(n)", "O(n log n)", "O(n^2)", "O(log n)"),
    ),
    # 58 depends on definition -> ambiguous
    (
        r"""It depends on the definition. If we count polar deserts, the Antarctic Desert (about 14 million km²) is the largest. If we only count hot/subtropical deserts, the Sahara (about 9.2 million km²) is the largest.

So the answer is A or B, depending on which definition the question intends.""",
        "B",
        "ambiguous",
        ("Sahara", "Antarctic Desert", "Arabian Desert", "Gobi"),
    ),
    # 59 amendments
    (
        r"""- The **13th Amendment** (1865) abolished slavery and involuntary servitude.
- The 14th (1868) guaranteed citizenship and equal protection.
- The 15th (1870) prohibited denying the vote based on race.
- The 19th (1920) granted women the right to vote.

The correct option is (A).""",
        "A",
        1.0,
        ("13th", "14th", "15th", "19th"),
    ),
    # 60 boxed letter
    (
        r"""\[
2x + 7 = 19 \;\Rightarrow\; 2x = 12 \;\Rightarrow\; x = 6
\]

Check: \(2(6) + 7 = 19\) ✓

\(\boxed{B}\)""",
        "B",
        1.0,
        ("x = 4", "x = 6", "x = 13", "x = 5"),
    ),
    # 61 boxed letter wrong
    (
        r"""\[
2x + 7 = 19 \Rightarrow 2x = 19 - 7 - 2 = 10 \Rightarrow x = 5
\]

\(\boxed{D}\)""",
        "B",
        0.0,
        ("x = 4", "x = 6", "x = 13", "x = 5"),
    ),
    # 62 Roman numerals with capital-letter options
    (
        r"""In Roman numerals, 40 is written by placing X (10) before L (50), meaning 50 − 10 = 40.

- LX = 60
- XXXX is not standard (you don't repeat a symbol four times)
- IL is not valid; 49 is XLIX

So 40 = XL, which is option A.""",
        "A",
        1.0,
        ("XL", "LX", "XXXX", "IL"),
    ),
    # 63 "20 A" wrong
    (
        r"""Current: let me use I = V / R with V = 120 V and R = 6 Ω (taking the two 12 Ω resistors in parallel):

I = 120 / 6 = 20 A

**D. 20 A**""",
        "C",
        0.0,
        ("2 A", "5 A", "10 A", "20 A"),
    ),
    # 64 RNA
    (
        r"""DNA uses the bases A, T, G, C. RNA replaces thymine (T) with uracil (U), so its bases are A, U, G, C. ATP and NADH are nucleotide-derived cofactors, not nucleic acids.

ANSWER: B""",
        "B",
        1.0,
        ("DNA", "RNA", "ATP", "NADH"),
    ),
    # 65 self-correction to right
    (
        r"""The Berlin Wall fell near the end of the Cold War, so I'll say 1991, option (C).

Wait, let me recheck — 1991 is when the Soviet Union dissolved. The Berlin Wall actually fell on 9 November 1989, and German reunification followed in October 1990.

The correct option is (B).""",
        "B",
        1.0,
        ("1987", "1989", "1991", "1993"),
    ),
    # 66 refuses to pick
    (
        r"""The question asks which treaty ended the conflict described in the passage, but the passage excerpt seems to be missing, so I can't tell which war is being referred to. Several of these treaties ended different wars (Paris alone refers to many treaties). I'm unable to choose an option without the passage.""",
        "C",
        0.0,
        (
            "Treaty of Utrecht",
            "Treaty of Paris",
            "Treaty of Ghent",
            "Treaty of Versailles",
        ),
    ),
    # 67 A or C -> ambiguous
    (
        r"""After eliminating B and D, I'm left with A and C. Both are consistent with the data in the table, and I can't find anything to distinguish them.

My answer: A or C.""",
        "A",
        "ambiguous",
        None,
    ),
    # 68 either A or B -> ambiguous
    (
        r"""This depends on how you read the question:

- **Water vapor (A)** contributes the largest share of the natural greenhouse effect (roughly 50%).
- **Carbon dioxide (B)** is the most important driver of *human-caused* warming.
- Methane (C) and nitrous oxide (D) are potent but present in much smaller amounts.

So the answer is either (A) or (B).""",
        "A",
        "ambiguous",
        ("Water vapor", "Carbon dioxide", "Methane", "Nitrous oxide"),
    ),
]


EXACT_MATCH = [
    # 1
    (
        r"""Gold's symbol derives from the Latin *aurum*, meaning "shining dawn". It has atomic number 79 and sits in group 11 with copper (Cu) and silver (Ag).

Answer: `Au`""",
        "Au",
        1.0,
    ),
    # 2
    (
        r"""Australia's capital isn't its largest city. Sydney and Melbourne both competed for the role, and in 1908 a site between them was chosen; Parliament moved there in 1927.

<answer>Canberra</answer>""",
        "Canberra",
        1.0,
    ),
    # 3
    (
        r"""The highest mountain in Africa is a dormant stratovolcano in Tanzania, rising to 5,895 m. Mount Kenya (5,199 m) is second.

The answer is **Mount Kilimanjaro**.""",
        "Mount Kilimanjaro",
        1.0,
    ),
    # 4 misspelling
    (r"""The capital of Australia is **Canbera**.""", "Canberra", 0.0),
    # 5 boxed text
    (
        r"""Comparing the oceans by area:
- Pacific: ~165 million km²
- Atlantic: ~106 million km²
- Indian: ~70 million km²
- Southern: ~21 million km²
- Arctic: ~14 million km²

\[
\boxed{\text{Pacific Ocean}}
\]""",
        "Pacific Ocean",
        1.0,
    ),
    # 6 self-correction to right
    (
        r"""Canada's largest city is Toronto, so the capital is Toronto.

Wait, let me recheck. Toronto is the capital of the *province* of Ontario, but the federal capital of Canada is Ottawa, chosen by Queen Victoria in 1857.

Final answer: **Ottawa**""",
        "Ottawa",
        1.0,
    ),
    # 7 self-correction to wrong
    (
        r"""The capital of Turkey is Ankara, which became the capital in 1923.

Hmm, actually, let me reconsider. Istanbul is the country's largest city and its historical capital under the Ottomans, and most major institutions are there.

Final answer: Istanbul""",
        "Ankara",
        0.0,
    ),
    # 8 could be Paris or Lyon -> ambiguous
    (
        r"""The Lumière brothers were based in Lyon, where they filmed *Workers Leaving the Lumière Factory*, but their famous first public paid screening took place in December 1895. It could be Paris or Lyon — I'm not sure which one the question is counting as the "first".""",
        "Paris",
        "ambiguous",
    ),
    # 9 italics
    (
        r"""Plants convert light energy, water and carbon dioxide into glucose and oxygen:

6CO₂ + 6H₂O + light → C₆H₁₂O₆ + 6O₂

This process is called *photosynthesis*.""",
        "photosynthesis",
        1.0,
    ),
    # 10 bold with trailing period
    (
        r"""Iron's symbol comes from the Latin *ferrum*. It has atomic number 26.

**Fe**.""",
        "Fe",
        1.0,
    ),
    # 11 wrong symbol
    (
        r"""Iron starts with the letter I, and single-letter symbols are used for many common elements (H, C, N, O), so iron's chemical symbol is **I**.""",
        "Fe",
        0.0,
    ),
    # 12 quoted answer with period
    (
        r"""Orbital periods increase with distance from the Sun (Kepler's third law):

- Mercury: 88 days
- Venus: 225 days
- Earth: 365 days
- Mars: 687 days

Final answer: "Mercury".""",
        "Mercury",
        1.0,
    ),
    # 13 quoted inside sentence
    (
        r"""The word meaning "the occurrence of events by chance in a happy or beneficial way" was coined by Horace Walpole in 1754, after the Persian fairy tale *The Three Princes of Serendip*.

The word is "serendipity".""",
        "serendipity",
        1.0,
    ),
    # 14 upper case
    (
        r"""Step 1: The element with atomic number 8 has 8 protons.
Step 2: Its electron configuration is 1s² 2s² 2p⁴.
Step 3: It makes up about 21% of Earth's atmosphere.

THE ANSWER IS: OXYGEN""",
        "oxygen",
        1.0,
    ),
    # 15 backticks after code block
    (
        r"""In Python, the built-in function that returns the number of items in a list, string, tuple or dict is `len`. For example:

```python
>>> len([3, 1, 4, 1, 5])
5
```

Answer: `len`""",
        "len",
        1.0,
    ),
    # 16 wrong anagram
    (
        r"""The letters S, I, L, E, N, T can be rearranged into several words: "listen", "enlist", "tinsel", "inlets".

The word that means *to pay attention to sound*... I'll go with **enlist**.""",
        "listen",
        0.0,
    ),
    # 17 wrong plural
    (
        r"""Most English nouns form plurals by adding -s or -es. "Mouse" follows the regular pattern here:

**mouses**""",
        "mice",
        0.0,
    ),
    # 18 either/or -> ambiguous
    (
        r"""Canada's seat of government is in Ontario. Ottawa hosts Parliament Hill, but Toronto is the largest city and the provincial capital. The answer is either Ottawa or Toronto.""",
        "Ottawa",
        "ambiguous",
    ),
    # 19 bold name
    (
        r"""*Nineteen Eighty-Four* (1949) was written by Eric Arthur Blair under his pen name. He also wrote *Animal Farm* (1945) and *Homage to Catalonia* (1938).

**George Orwell**""",
        "George Orwell",
        1.0,
    ),
    # 20 bold then extra note
    (
        r"""In Spanish, "cat" is translated as **gato** (masculine) — the feminine form for a female cat is *gata*, but the general word is gato.""",
        "gato",
        1.0,
    ),
    # 21
    (
        r"""The verb "run" is irregular: run → ran → run.

Past tense: **ran**""",
        "ran",
        1.0,
    ),
    # 22 wrong form
    (
        r"""The past tense is formed by adding -ed to the verb: run + ed → **runned**.""",
        "ran",
        0.0,
    ),
    # 23 LaTeX text
    (
        r"""The largest planet in the solar system has a mass about 318 times Earth's and a diameter of roughly 139,820 km. Saturn is second at about 116,460 km.

$\text{Jupiter}$""",
        "Jupiter",
        1.0,
    ),
    # 24 boxed text in display math
    (
        r"""Ordering the planets by distance from the Sun: Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus, Neptune. Since Pluto was reclassified as a dwarf planet in 2006, the farthest planet is

$$\boxed{\text{Neptune}}$$""",
        "Neptune",
        1.0,
    ),
    # 25 wrong planet
    (
        r"""The outermost planet is the seventh one from the Sun, the ice giant that rotates on its side: **Uranus**.""",
        "Neptune",
        0.0,
    ),
    # 26 steps then answer line
    (
        r"""### Step 1
The *Mona Lisa* was painted in the early 16th century (c. 1503–1519).

### Step 2
It hangs in the Louvre in Paris, and it's associated with the Italian High Renaissance polymath who also painted *The Last Supper*.

### Step 3
Not Michelangelo (Sistine Chapel) or Raphael (*School of Athens*).

**Answer:** Leonardo da Vinci""",
        "Leonardo da Vinci",
        1.0,
    ),
    # 27 formula in backticks
    (
        r"""Table salt is sodium chloride: one Na⁺ ion for each Cl⁻ ion, giving a 1:1 ratio.

Formula: `NaCl`""",
        "NaCl",
        1.0,
    ),
    # 28 wrong formula
    (
        r"""Sodium chloride forms when sodium reacts with chlorine gas, which is diatomic (Cl₂). So the formula is **NaCl2**.""",
        "NaCl",
        0.0,
    ),
    # 29 either -> ambiguous
    (
        r"""The planet with the largest volcano (Olympus Mons)... or was it Maxwell Montes? I believe it's either Mars or Venus; I'm not sure.""",
        "Mars",
        "ambiguous",
    ),
    # 30 no answer
    (r"""I'm sorry, but I don't know the answer to this question.""", "Helsinki", 0.0),
    # 31 lists options then commits
    (
        r"""Antonyms of "ancient" include *modern*, *new*, *recent* and *contemporary*. The most direct opposite is:

**modern**""",
        "modern",
        1.0,
    ),
    # 32 multi-word name
    (
        r"""The specialized UN agency founded on 7 April 1948 and headquartered in Geneva, responsible for international public health, is the World Health Organization (WHO).

Answer: World Health Organization""",
        "World Health Organization",
        1.0,
    ),
    # 33 self-correction to right
    (
        r"""The Danube flows through ten countries and is about 2,850 km long, so it's the longest river in Europe.

Wait — let me double-check. The Volga is about 3,530 km long and lies entirely within Russia, which is partly in Europe. So the Volga is longer than the Danube.

The answer is **Volga**.""",
        "Volga",
        1.0,
    ),
    # 34 wrong river
    (
        r"""Europe's longest river flows from the Black Forest in Germany to the Black Sea, passing through Vienna, Budapest and Belgrade.

Answer: Danube""",
        "Volga",
        0.0,
    ),
    # 35 Roman numeral
    (
        r"""Break 42 into 40 + 2:
- 40 = XL (50 − 10)
- 2 = II

So 42 = XL + II = **XLII**.""",
        "XLII",
        1.0,
    ),
    # 36 Roman numeral wrong
    (
        r"""Convert 42:
- 40 → XL
- 3 → III

Roman numeral: **XLIII**""",
        "XLII",
        0.0,
    ),
    # 37 binary string after table
    (
        r"""Convert 45 to binary by repeated division by 2:

| Division | Quotient | Remainder |
|---|---|---|
| 45 ÷ 2 | 22 | 1 |
| 22 ÷ 2 | 11 | 0 |
| 11 ÷ 2 | 5 | 1 |
| 5 ÷ 2 | 2 | 1 |
| 2 ÷ 2 | 1 | 0 |
| 1 ÷ 2 | 0 | 1 |

Reading remainders bottom to top: `101101`""",
        "101101",
        1.0,
    ),
    # 38 Morse
    (
        r"""Decoding the Morse code `... --- ...`:
- `...` = S
- `---` = O
- `...` = S

The message is **SOS**.""",
        "SOS",
        1.0,
    ),
    # 39
    (
        r"""Brazil was colonized by a European country whose language is still spoken there today. Pedro Álvares Cabral claimed it in 1500 for that crown.

The answer is Portugal.""",
        "Portugal",
        1.0,
    ),
    # 40
    (
        r"""Although most of South America speaks Spanish, Brazil's official language reflects its colonial history with Portugal.

**Answer: Portuguese**""",
        "Portuguese",
        1.0,
    ),
    # 41 wrong language
    (
        r"""Brazil is in South America, where the dominant language is Spanish, spoken in nearly every country on the continent.

Answer: Spanish""",
        "Portuguese",
        0.0,
    ),
    # 42 weekday
    (
        r"""Start from a known reference: 1 January 2025 was a Wednesday.

2025 is not a leap year, so it has 365 days = 52 weeks + 1 day.

Therefore 1 January 2026 falls one weekday later than Wednesday.

**Thursday**""",
        "Thursday",
        1.0,
    ),
    # 43 two days -> ambiguous
    (
        r"""Counting forward from the meeting date, I get 45 days later. 45 = 6 × 7 + 3, so it's three days after Sunday — Wednesday. Although if the first day is counted, it would be Tuesday.

So it's Tuesday or Wednesday.""",
        "Wednesday",
        "ambiguous",
    ),
    # 44 month, extra etymology
    (
        r"""The months in order: January (1), February (2), …, September (9), October (10), November (11), December (12).

Interestingly, "October" comes from the Latin *octo* (eight) because it was the 8th month in the old Roman calendar, but today it's the 10th.

Answer: October""",
        "October",
        1.0,
    ),
    # 45
    (
        r"""In the subtractive (paint) color model, mixing blue and yellow pigment produces **green**.""",
        "green",
        1.0,
    ),
    # 46 verify mentions other cities
    (
        r"""The capital of Kenya is **Nairobi**.

Let me verify: Mombasa is Kenya's main port and second-largest city, Kisumu is on Lake Victoria, and Nakuru is in the Rift Valley — but the seat of government and largest city is Nairobi ✓.""",
        "Nairobi",
        1.0,
    ),
    # 47 think block
    (
        r"""<think>
The capital of Japan. Historically Kyoto was the imperial capital for over a thousand years, until 1868 when the Emperor moved to Edo, renamed Tokyo. Osaka is a major city but never the modern capital. So the current capital is Tokyo.
</think>

The capital of Japan is Tokyo.""",
        "Tokyo",
        1.0,
    ),
    # 48 italics only line
    (
        r"""The planet famous for its extensive, bright ring system made mostly of water ice is the sixth planet from the Sun.

*Saturn*""",
        "Saturn",
        1.0,
    ),
    # 49 table then bold
    (
        r"""Composition of dry air by volume:

| Gas | % |
|---|---|
| Nitrogen | 78.08 |
| Oxygen | 20.95 |
| Argon | 0.93 |
| Carbon dioxide | 0.04 |

The most abundant gas is **nitrogen**.""",
        "nitrogen",
        1.0,
    ),
    # 50 quotes and period
    (
        r"""The fastest land animal can reach about 100–120 km/h in short bursts. Pronghorn antelope are second but excel at sustained speed.

Answer: "cheetah".""",
        "cheetah",
        1.0,
    ),
    # 51 capitalised
    (
        r"""A polygon with six sides and six angles is called a hexagon. (Five sides is a pentagon, seven a heptagon.)

**Hexagon**""",
        "hexagon",
        1.0,
    ),
    # 52
    (
        r"""In physics, wavelength is conventionally denoted by the Greek letter λ.

The name of that letter is **lambda**.""",
        "lambda",
        1.0,
    ),
    # 53 wrong letter
    (
        r"""Wavelength is usually written with the Greek letter σ in physics.

Answer: sigma""",
        "lambda",
        0.0,
    ),
    # 54 either -> ambiguous
    (
        r"""The coefficient of friction is commonly denoted by a Greek letter; in my notes it appears as either mu or eta, depending on the textbook.""",
        "mu",
        "ambiguous",
    ),
    # 55 keyword after code block
    (
        r"""In Python, a function becomes a generator when it contains a particular keyword that pauses execution and produces a value:

```python
def countdown(n):
    while n > 0:
        yield n
        n -= 1
```

The keyword is `yield`.""",
        "yield",
        1.0,
    ),
    # 56
    (
        r"""HTTP traditionally runs over a connection-oriented, reliable transport protocol that guarantees in-order delivery using sequence numbers and acknowledgments (unlike UDP).

Answer: **TCP**""",
        "TCP",
        1.0,
    ),
    # 57
    (
        r"""Translation of mRNA into a polypeptide chain happens at the ribosome, which reads codons and links amino acids brought by tRNA.

The answer is: ribosome.""",
        "ribosome",
        1.0,
    ),
    # 58
    (
        r"""The telephone patent (US 174,465) was granted on 7 March 1876 to Alexander Graham Bell, narrowly ahead of Elisha Gray's caveat.

**Alexander Graham Bell**""",
        "Alexander Graham Bell",
        1.0,
    ),
    # 59 wrong inventor
    (
        r"""The inventor most associated with early telecommunications devices and who held over 1,000 patents was **Thomas Edison**.""",
        "Alexander Graham Bell",
        0.0,
    ),
    # 60
    (
        r"""By volume of water discharged, the largest river in the world is the Amazon, averaging about 209,000 m³/s — more than the next seven largest rivers combined.

Answer: Amazon""",
        "Amazon",
        1.0,
    ),
    # 61
    (
        r"""Excluding the polar deserts, the largest hot desert in the world spans about 9.2 million km² across North Africa.

The answer is the **Sahara**.""",
        "Sahara",
        1.0,
    ),
    # 62 either -> ambiguous
    (
        r"""The largest hot desert... it's either the Sahara or the Arabian Desert; both are enormous and I'm not certain which is bigger.""",
        "Sahara",
        "ambiguous",
    ),
    # 63 wrong desert
    (
        r"""The largest non-polar desert in the world stretches across northern China and southern Mongolia.

Answer: `Gobi`""",
        "Sahara",
        0.0,
    ),
    # 64
    (
        r"""Measured from sea level, the highest peak on Earth stands at 8,848.86 m (2020 China–Nepal survey), on the border of Nepal and the Tibet Autonomous Region. K2 is second at 8,611 m.

Final answer: **Mount Everest**""",
        "Mount Everest",
        1.0,
    ),
    # 65 inline LaTeX text
    (
        r"""The theorem stating that a² + b² = c² in a right triangle is named after the ancient Greek philosopher from Samos.

\(\text{Pythagoras}\)""",
        "Pythagoras",
        1.0,
    ),
    # 66 answer tags
    (
        r"""Japan's currency is the yen (¥), introduced in 1871.

<answer>yen</answer>""",
        "yen",
        1.0,
    ),
    # 67 misspelling
    (
        r"""The capital of Finland, located on the Gulf of Finland, is **Helsinky**.""",
        "Helsinki",
        0.0,
    ),
    # 68 other symbols mentioned before the answer
    (
        r"""Silver (atomic number 47) takes its symbol from the Latin *argentum*. Don't confuse it with gold (Au) or aluminium (Al).

Answer: `Ag`""",
        "Ag",
        1.0,
    ),
    # 69 self-correction with boxed text
    (
        r"""Electronegativity increases across a period and up a group. Oxygen is very electronegative (3.44 on the Pauling scale), so it might be oxygen.

Let me recheck: fluorine, one place to the right of oxygen, has a Pauling value of 3.98 — the highest of any element.

$$\boxed{\text{Fluorine}}$$""",
        "fluorine",
        1.0,
    ),
    # 70 either -> ambiguous
    (
        r"""The planet with the most confirmed moons has changed several times as new discoveries are announced. Recent counts put Saturn ahead, but Jupiter has led in the past. The answer is either Saturn or Jupiter.""",
        "Saturn",
        "ambiguous",
    ),
    # 71 either word -> ambiguous
    (
        r"""The sentence is: "The new policy had a significant ___ on sales."

Here we need a noun. "Effect" is usually the noun and "affect" the verb, but "affect" is also a noun in psychology. So the answer is either "affect" or "effect".""",
        "effect",
        "ambiguous",
    ),
    # 72 could be either -> ambiguous
    (
        r"""Mercury is closest to the Sun, but Venus has a thick CO₂ atmosphere that traps heat. Surface temperatures for both reach over 400 °C, so the hottest planet could be Mercury or Venus.""",
        "Venus",
        "ambiguous",
    ),
]
