"""Units, notation and answer styles (units with exponents, scientific notation,
fractions, display math, spaced minus signs, money and percentages, self-corrections,
other labels), written without reading the scorers' code (a held-out set when it was
made, issue 13).

Verdicts: 1.0 credits the reply, 0.0 does not, "ambiguous" is a hedge, range or two final answers a careful
grader refuses to credit. tests/scorers/test_careful.py checks credit agreement on these, not failure codes.
"""

NUMERIC = [
    # ---- plain chain-of-thought with ANSWER line ----
    (
        r"""Let's work through this step by step.

Maria buys 3 packs of pencils with 12 pencils each, so she starts with 3 × 12 = 36 pencils.
She gives 9 pencils to her classmates: 36 − 9 = 27.
She splits the rest equally into 3 boxes: 27 ÷ 3 = 9.

ANSWER: 9""",
        "9",
        1.0,
    ),
    (
        r"""We need the total length of the three boards.

- Board 1: 1.25 m
- Board 2: 1.5 m
- Board 3: 1 m

Sum: 1.25 + 1.5 + 1 = 3.75 m

**Final Answer:** 3.75""",
        "15/4",
        1.0,
    ),
    (
        r"""The bakery sells 48 muffins in the morning and twice as many in the afternoon, so 48 × 2 = 96 in the afternoon.
Total muffins = 48 + 96 = 144.
Each box holds 6 muffins, so they need 144 / 6 = 24 boxes.
#### 24""",
        "24",
        1.0,
    ),
    (
        r"""We are given $3x - 4 = 65$. Adding 4 to both sides gives $3x = 69$, so $x = 23$.
Final Answer: The final answer is $23$. I hope it is correct.""",
        "23",
        1.0,
    ),
    (
        r"""The sum of the interior angles of a polygon with $n$ sides is $(n-2)\cdot 180^\circ$.

For a hexagon, $n = 6$:
$$(6-2)\cdot 180 = 4 \cdot 180 = 720$$

So the sum of the interior angles is $\boxed{720}$ degrees.""",
        "720",
        1.0,
    ),
    # ---- units with exponents ----
    (
        r"""The square has a side length of 9 cm.

Area = side² = 9 × 9 = 81

ANSWER: 81 cm^2""",
        "81",
        1.0,
    ),
    (
        r"""Using the definition of average acceleration:

a = Δv / Δt = (30 m/s − 0 m/s) / 4 s = 7.5 m/s²

**Answer:** 7.5 m/s²""",
        "7.5",
        1.0,
    ),
    (
        r"""The tank is a rectangular prism: 2 m × 1.25 m × 1 m.

V = 2 × 1.25 × 1 = 2.5

The volume of the tank is 2.5 m³.""",
        "2.5",
        1.0,
    ),
    (
        r"""The rectangle is 8 cm long and 6 cm wide.

Area = length × width = 8 × 6 = 48

ANSWER: 48 cm^2""",
        "64",
        0.0,
    ),
    (
        r"""Density is mass divided by volume.

ρ = m / V = 15.7 kg / 0.002 m^3 = 7850 kg/m^3

This matches the density of steel.

ANSWER: 7850 kg/m^3""",
        "7850",
        1.0,
    ),
    (
        r"""On Earth's surface, g is approximately 9.81 m/s^2. The object is in free fall, so its acceleration is simply g.

Final answer: 9.81 m/s^2""",
        "9.81",
        1.0,
    ),
    (
        r"""Net force: F = 12 N − 3 N = 9 N.
Mass: m = 6 kg.
a = F/m = 9/6 = 1.5

ANSWER: 1.5 m/s^2""",
        "1.5",
        1.0,
    ),
    # ---- powers of ten / scientific notation ----
    (
        r"""1 km = 1000 m, so
1 km² = (1000 m)² = 1,000,000 m² = 10^6 m².

ANSWER: 10^6""",
        "1000000",
        1.0,
    ),
    (
        r"""In SI units, the prefix "giga" means one billion.

So 1 GB (decimal) contains $10^{9}$ bytes.

The answer is $10^{9}$.""",
        "1000000000",
        1.0,
    ),
    (
        r"""The speed of light in vacuum is c ≈ 299,792,458 m/s. Rounded to two significant figures this is:

c ≈ 3.0×10⁸ m/s

Final answer: 3.0×10⁸ m/s""",
        "300000000",
        1.0,
    ),
    (
        r"""Molar mass of water is 18 g/mol, so 36 g of water is 36/18 = 2 mol.

Number of molecules = 2 × 6.02 × 10^{23} = 1.204 × 10^{24}

**Answer:** $1.204 \times 10^{24}$ molecules""",
        "1.204e24",
        1.0,
    ),
    (
        r"""Population after growth: P = 1.5 × 10^5 × 3 = 4.5 × 10^5.

Therefore the population is approximately $4.5 \times 10^{5}$.

ANSWER: $4.5 \times 10^{5}$""",
        "4500000",
        0.0,
    ),
    (
        r"""Convert milligrams to grams: 1.2 mg = 1.2 / 1000 g.

$$1.2 \text{ mg} = 1.2 \times 10^{-3} \text{ g}$$

ANSWER: $1.2 \times 10^{-3}$""",
        "0.0012",
        1.0,
    ),
    (
        r"""The probability of each defect is independent:
P = 0.01 × 0.05 = 0.0005

In scientific notation: $5 \times 10^{-4}$.

Final Answer: $5 \times 10^{-4}$""",
        "0.0005",
        1.0,
    ),
    (
        r"""A terabyte is $10^{12}$ bytes and the question asks how many bytes are in 1 TB.

ANSWER: $10^{12}$""",
        "1000000000",
        0.0,
    ),
    (
        r"""Each wave travels at 3.0 × 10^8 m/s, and we need the distance covered in 0.1 s:
d = 3.0 × 10^8 × 0.1 = 3.0 × 10^7 m

Hmm, let me re-read: the question asks for distance in 1 s.
d = 3.0 × 10^8 m

ANSWER: 3.0 × 10^8""",
        "30000000",
        0.0,
    ),
    (
        r"""We have $2^{10}$ ways, since each of the 10 switches is independently on or off.

**Answer:** $2^{10} = 1024$""",
        "1024",
        1.0,
    ),
    # ---- mixed numbers and fractions ----
    (
        r"""The recipe calls for 1 1/4 cups of flour for the dough and 1 1/2 cups for the topping.

1 1/4 + 1 1/2 = 5/4 + 6/4 = 11/4 = 2 3/4

ANSWER: 2 3/4""",
        "2.75",
        1.0,
    ),
    (
        r"""Total distance walked: 1 2/3 + 1 2/3 = 3 1/3 miles.

ANSWER: 3 1/3""",
        "3.5",
        0.0,
    ),
    (
        r"""There are 8 equally likely outcomes, and 5 of them satisfy the condition.

The probability is $\frac58$.""",
        "0.625",
        1.0,
    ),
    (
        r"""Out of 8 slices, 7 were eaten, so the fraction eaten is

Answer: $\dfrac{7}{8}$""",
        "7/8",
        1.0,
    ),
    (
        r"""Combining the fractions:
$$\frac{1}{2} + \frac{1}{4} = \frac{3}{4}$$

ANSWER: $\frac{3}{4}$""",
        "0.8",
        0.0,
    ),
    (
        r"""Each child gets 5 ÷ 2 pizzas.

$$\frac{5}{2} = 2\frac{1}{2}$$

So each child gets $\boxed{2\frac{1}{2}}$ pizzas.""",
        "2.5",
        1.0,
    ),
    (
        r"""Of the 6 faces, exactly one shows a 4. So the probability is 1/6.

Final Answer: The final answer is $\frac{1}{6}$. I hope it is correct.""",
        "1/6",
        1.0,
    ),
    (
        r"""Half of the students chose soccer: 20 out of 40.

20/40 = 0.5

ANSWER: 0.5""",
        "1/2",
        1.0,
    ),
    (
        r"""The three friends split one cake equally, so each gets

$$\frac{1}{3} \approx 0.333$$

**Final Answer:** $\frac{1}{3}$""",
        "1/3",
        1.0,
    ),
    # ---- answer label followed by display math ----
    (
        r"""Solve $5x - 7 = 53$.

Add 7: $5x = 60$.
Divide by 5: $x = 12$.

Answer:
\[
x = 12
\]""",
        "12",
        1.0,
    ),
    (
        r"""We compute the slope of the line through (0, 1) and (4, 10):

m = (10 − 1) / (4 − 0) = 9/4

**Final Answer:**

$$
\frac{9}{4}
$$""",
        "2.25",
        1.0,
    ),
    (
        r"""Using the quadratic formula on $x^2 - 10x + 24 = 0$ and taking the larger root:

$$x = \frac{10 + \sqrt{100 - 96}}{2} = \frac{10 + 2}{2} = 6$$

ANSWER:
$$
\boxed{6}
$$""",
        "6",
        1.0,
    ),
    (
        r"""The limit evaluates by L'Hôpital's rule:

$$\lim_{x\to 0} \frac{\sin 3x}{x} = \lim_{x \to 0} \frac{3\cos 3x}{1} = 3$$

Answer:
\[
3
\]""",
        "3",
        1.0,
    ),
    # ---- hedges and ranges (ambiguous) ----
    (
        r"""The ratio of the sides depends on which side we call the numerator.

If we take the longer side over the shorter, we get 3; if we take it the other way, we get 1/3.

So the ratio is either 3 or 1/3.""",
        "3",
        "ambiguous",
    ),
    (
        r"""The car's tank capacity combined with the consumption rate means the trip would use roughly 55-60 liters of fuel, depending on traffic.

ANSWER: 55-60""",
        "58",
        "ambiguous",
    ),
    (
        r"""Given the uncertainty in the measurement of the walls, the number of tiles needed is somewhere between 12 and 15.

**Answer:** between 12 and 15 tiles""",
        "14",
        "ambiguous",
    ),
    (
        r"""Solving $x^2 = 16$:

$x = \sqrt{16}$ or $x = -\sqrt{16}$

So x = 4 or x = -4.""",
        "4",
        "ambiguous",
    ),
    (
        r"""Counting the fence posts: if the posts at both ends are included, we need 15; if one end is attached to the wall, we need 14.

Final answer: 14 or 15""",
        "15",
        "ambiguous",
    ),
    (
        r"""I'm not completely sure about the interpretation of "every other day". It could be 6 visits, or it could be 8 visits if the first and last day both count.

ANSWER: 6 or 8""",
        "8",
        "ambiguous",
    ),
    (
        r"""The drive is 210 km and the average speed is between 60 and 70 km/h, so the trip takes about 3 to 4 hours.

ANSWER: about 3 to 4 hours""",
        "3.5",
        "ambiguous",
    ),
    (
        r"""The distance from the town to the lake is not precisely given, but based on the map scale it is between 40 and 45 km.

The answer is between 40 and 45 km.""",
        "42",
        "ambiguous",
    ),
    # ---- spaced minus and negatives ----
    (
        r"""Solve x + 10 = 3.

Subtract 10 from both sides: x = 3 − 10.

ANSWER: - 7""",
        "-7",
        1.0,
    ),
    (
        r"""Temperature change: the reading went from 8 °C down by 20 °C.

8 − 20 = −12

$$\boxed{-12}$$""",
        "-12",
        1.0,
    ),
    (
        r"""The Celsius and Fahrenheit scales coincide where F = C:
C = (9/5)C + 32 → −(4/5)C = 32 → C = −40.

ANSWER: −40 °C""",
        "-40",
        1.0,
    ),
    (
        r"""The slope of the line through (1, 5) and (3, 2) is

$$m = \frac{2 - 5}{3 - 1} = -\frac{3}{2}$$

**Final Answer:** $-\frac{3}{2}$""",
        "-1.5",
        1.0,
    ),
    (
        r"""Evaluate f(−1) for f(x) = 2x − 0.5:
f(−1) = −2 − 0.5 = −2.5

ANSWER: −2.5""",
        "-5/2",
        1.0,
    ),
    (
        r"""The submarine starts at −20 m and rises 12 m:
−20 + 12 = −8

But the question asks for its depth below the surface, which is 8 m.

ANSWER: 8""",
        "-8",
        0.0,
    ),
    (
        r"""f(3) = 3² − 9 = 0.

ANSWER: 0""",
        "0",
        1.0,
    ),
    # ---- trailing asides after the answer ----
    (
        r"""Let the number of apples be a. We have 3a + 4 = 49, so 3a = 45 and a = 15.

The answer is 15. Step 2: To double-check, 3 × 15 = 45 and 45 + 4 = 49, which matches the 49 given in the problem.""",
        "15",
        1.0,
    ),
    (
        r"""Using the Pythagorean theorem: the ladder is 13 m and the base is 12 m from the wall, so the height is √(169 − 144) = √25 = 5.

The answer is 5 meters. (Note: if the base were 5 m from the wall instead, the height would be 12 m.)""",
        "5",
        1.0,
    ),
    (
        r"""The area of the square is the side length squared.

The answer is 49 (since 7^2 = 49, and 7 × 4 = 28 would be the perimeter instead).""",
        "49",
        1.0,
    ),
    (
        r"""Mean = (4 + 6 + 7 + 9 + 10) / 5 = 36 / 5 = 7.2

Therefore, the mean is 7.2.

Step 3: Now, if we also wanted the median, we would sort the values and take the middle one, which is 7.""",
        "7.2",
        1.0,
    ),
    (
        r"""ANSWER: 18

Explanation: each of the 6 boxes contains 3 toys, so 6 × 3 = 18. If there had been 4 more boxes, the total would be 30.""",
        "18",
        1.0,
    ),
    # ---- money, percentages ----
    (
        r"""Cost breakdown:
- 15 chairs × $89.25 = $1,338.75
- 3 tables × $360.00 = $1,080.00

Total = $1,338.75 + $1,080.00 = $2,418.75

**Total cost: $2,418.75**""",
        "2418.75",
        1.0,
    ),
    (
        r"""The jacket originally costs $80. After the 15% discount:

Discount amount = $12, and 12 / 80 = 0.15.

Answer: The discount is 15%.""",
        "15",
        1.0,
    ),
    (
        r"""Out of 40 students, 15 passed with distinction.

15 / 40 = 0.375 = 37.5%

ANSWER: 37.5%""",
        "37.5",
        1.0,
    ),
    (
        r"""Interest earned = $200 × 0.06 × 1 = $12.
As a fraction of the final balance this is 12 / 212 ≈ 5.7%, but the question asks for the interest rate.

ANSWER: 12%""",
        "6",
        0.0,
    ),
    (
        r"""The team sold 1,243 tickets... let me recount the ticket sales by day:
Monday 412, Tuesday 398, Wednesday 424.

412 + 398 + 424 = 1,234

The total revenue is $1,234.00 at $1 per ticket.

ANSWER: $1,234.00""",
        "1243",
        0.0,
    ),
    (
        r"""Price per notebook: $3.50 × 24 notebooks = $84.

The answer is $\$84$.""",
        "84",
        1.0,
    ),
    (
        r"""The price rose from $40 to $43, a change of $3.
$3 / $40 = 0.075 = 7.5%

ANSWER: 7.5%""",
        "7.5",
        1.0,
    ),
    (
        r"""Jenna saves $125 every month for 10 months: 125 × 10 = 1,250.

**Answer: 1,250**""",
        "1250",
        1.0,
    ),
    (
        r"""A city has 1,000 blocks with 1,000 residents each.

Total = 1,000 × 1,000 = 1,000,000

#### 1,000,000""",
        "1000000",
        1.0,
    ),
    # ---- stops mid-calculation ----
    (
        r"""The train covers 240 km. It departs at 9:00 and arrives at 12:12, so the travel time is 3 hours 12 minutes = 3.2 hours.

Average speed = distance / time

So the speed is 240 / 3.2""",
        "75",
        0.0,
    ),
    (
        r"""Each of the 45 workers earns $12 per hour, plus a one-time bonus pool of $60 is added.

So the total cost is 45 × 12 + 60""",
        "600",
        0.0,
    ),
    # ---- self-corrections ----
    (
        r"""Each of the 4 teams plays every other team twice (home and away). I'll count games per team: 4 teams × 3 opponents = 12... plus the 2 playoff games gives 14.

ANSWER: 14

Wait — home-and-away means each pair plays twice, so the regular season is 4 × 3 = 12 games total (each ordered pair once). Adding the playoff round, which has 4 games (two semifinals, a final and a third-place match), gives 12 + 4 = 16.

ANSWER: 16""",
        "16",
        1.0,
    ),
    (
        r"""Total legs: 4 dogs × 4 = 16, plus 3 birds × 2 = 6, so 22.

ANSWER: 22

Hmm, wait. I forgot the 2 cats. 2 × 4 = 8 more legs.

22 + 8 = 30

ANSWER: 30""",
        "22",
        0.0,
    ),
    (
        r"""The perimeter is 2(7 + 5) = 24.

**Final Answer:** 24

Wait, the question asks for area, not perimeter. Area = 7 × 5 = 35.

**Final Answer:** 35""",
        "35",
        1.0,
    ),
    # ---- other label styles ----
    (
        r"""One hour has 60 minutes, and the recipe takes 1 hour and 4 minutes.

60 + 4 = 64

Answer：64""",
        "64",
        1.0,
    ),
    (
        r"""A full binary tree of depth 7 (root at depth 0) has 2^7 = 128 leaves.

<answer>128</answer>""",
        "128",
        1.0,
    ),
    (
        r"""There are 8 rows with 7 seats each, so the theater has 8 × 7 = 56 seats.

**Answer:** `56`""",
        "56",
        1.0,
    ),
    (
        r"""The hour hand moves 0.5° per minute and the minute hand 6° per minute. At 3:10 the hour hand is at 95° and the minute hand at 60°.

The angle between them is 35°.""",
        "35",
        1.0,
    ),
    (
        r"""A car travelling at constant speed covers 150 km in 2.5 hours.

Speed = 150 / 2.5 = 60

ANSWER: 60 km/h""",
        "60",
        1.0,
    ),
    (
        r"""Summing the laps: 13 + 13 + 13 + 13 = 52.

#### 52""",
        "56",
        0.0,
    ),
    (
        r"""Circumference = 2πr, and with r = 0.5 the circumference is π ≈ 3.14.

The answer is approximately 3.14.""",
        "3.14",
        1.0,
    ),
    (
        r"""The cashier gives back 10 − 7.50 = 2.50 dollars.

ANSWER: 2.50""",
        "2.5",
        1.0,
    ),
    (
        r"""She walks for 45 minutes each morning.

<answer>45 minutes</answer>""",
        "45",
        1.0,
    ),
    (
        r"""Let's compute the number of diagonals in an octagon: n(n−3)/2 = 8 × 5 / 2 = 20.

$$\boxed{20}$$""",
        "24",
        0.0,
    ),
    (
        r"""We need the number of ways to arrange 4 distinct books on a shelf: 4! = 24.

However, two of the books must be adjacent, so we treat them as one unit: 3! × 2! = 12.

**Final Answer:** 12""",
        "12",
        1.0,
    ),
]


MULTIPLE_CHOICE = [
    (
        r"""The total resistance in series is 2 Ω + 3 Ω = 5 Ω, and with a 2 A current, V = IR = 2 × 5 = 10 V.

Some might pick the voltage across just one resistor, but the question asks for the source voltage.

The correct answer is B, not D.""",
        "B",
        1.0,
        ("5 V", "10 V", "15 V", "20 V"),
    ),
    (
        r"""The total resistance in series is 2 Ω + 3 Ω = 5 Ω, and with a 2 A current, V = IR = 2 × 5 = 10 V.

The correct answer is B, not D.""",
        "D",
        0.0,
        ("5 V", "10 V", "15 V", "20 V"),
    ),
    (
        r"""Both a hash table lookup and a balanced BST lookup seem reasonable here. Given that the question mentions worst case, it's either B or D.""",
        "B",
        "ambiguous",
        ("O(1)", "O(log n)", "O(n)", "O(n^2)"),
    ),
    (
        r"""Two 6 Ω resistors in series give 12 Ω.

(C) 12 Ω""",
        "C",
        1.0,
        ("3 Ω", "6 Ω", "12 Ω", "24 Ω"),
    ),
    (
        r"""Merge sort always splits the array in half and merges in linear time, giving the recurrence T(n) = 2T(n/2) + n.

**C) O(n log n)**""",
        "C",
        1.0,
        ("O(1)", "O(log n)", "O(n)", "O(n log n)"),
    ),
    (
        r"""Vitamin C deficiency leads to impaired collagen synthesis, producing the bleeding gums and poor wound healing described.

After ruling out the others, A is correct.""",
        "A",
        1.0,
        ("Vitamin C", "Vitamin D", "Vitamin B12", "Vitamin K"),
    ),
    (
        r"""Looking at the options, none matches exactly what I computed (about 45 J), so the closest is the next one.

ANSWER: E""",
        "C",
        0.0,
        ("20 J", "30 J", "42 J", "50 J"),
    ),
    (
        r"""Let's analyze each option:

- **A) Mitochondria** – produce ATP via cellular respiration; not involved in protein synthesis directly.
- **B) Golgi apparatus** – modifies and packages proteins, but doesn't synthesize them.
- **C) Ribosome** – translates mRNA into polypeptide chains. ✔
- **D) Lysosome** – contains digestive enzymes.

The organelle responsible for protein synthesis is the ribosome.

**Answer: C**""",
        "C",
        1.0,
        ("Mitochondria", "Golgi apparatus", "Ribosome", "Lysosome"),
    ),
    (
        r"""Option A: Increasing temperature generally increases rate — true, but not the question.
Option B: A catalyst lowers activation energy — this is exactly what's asked.
Option C: Catalysts do not change ΔH.
Option D: Catalysts are not consumed.

ANSWER: B""",
        "B",
        1.0,
        (
            "It raises the temperature",
            "It lowers the activation energy",
            "It changes the enthalpy of reaction",
            "It is consumed in the reaction",
        ),
    ),
    (
        r"""Hmm, the dates here are a bit tricky. The Treaty of Versailles was signed in 1919, right after the armistice. I'd go with C.""",
        "C",
        1.0,
        ("1914", "1918", "1919", "1920"),
    ),
    (
        r"""I think the answer is D. I ruled out A because the primary consumers are herbivores, and I ruled out B and C since they are producers.""",
        "D",
        1.0,
        ("Grass", "Algae", "Oak tree", "Rabbit"),
    ),
    (
        r"""A higher frequency at constant wave speed means a shorter wavelength, since v = fλ. A doubling of frequency halves the wavelength.

So the answer is B.""",
        "B",
        1.0,
        ("It doubles", "It halves", "It stays the same", "It quadruples"),
    ),
    (
        r"""A quick look at the map helps: the capital of Australia was purpose-built between Sydney and Melbourne.

ANSWER: Canberra""",
        "C",
        1.0,
        ("Sydney", "Melbourne", "Canberra", "Perth"),
    ),
    (
        r"""Sydney is the largest and best-known city in Australia, and it is the seat of the government.

ANSWER: Sydney""",
        "C",
        0.0,
        ("Sydney", "Melbourne", "Canberra", "Perth"),
    ),
    (
        r"""The derivative of $\sin x$ is $\cos x$.

$$\boxed{C}$$""",
        "C",
        1.0,
        (r"$-\cos x$", r"$\sin x$", r"$\cos x$", r"$-\sin x$"),
    ),
    (
        r"""Noble gases have full valence shells, so they are chemically inert. Among the listed elements, argon is the noble gas.

$\boxed{\text{(B)}}$""",
        "B",
        1.0,
        ("Sodium", "Argon", "Chlorine", "Magnesium"),
    ),
    (
        r"""The mode is the most frequent value in the data set {2, 4, 4, 5, 7, 7, 7, 9}. 7 appears three times.

<answer>D</answer>""",
        "D",
        1.0,
        ("2", "4", "5", "7"),
    ),
    (
        r"""Newton's second law relates force to acceleration, so the answer is about F = ma.

ANSWER: A

Wait — the question asks about the law describing action-reaction pairs. That is Newton's third law.

ANSWER: C""",
        "C",
        1.0,
        (
            "Newton's first law",
            "Newton's second law",
            "Newton's third law",
            "Law of universal gravitation",
        ),
    ),
    (
        r"""Photosynthesis takes place in the chloroplasts of plant cells.

Answer：B""",
        "B",
        1.0,
        ("Nucleus", "Chloroplast", "Mitochondrion", "Vacuole"),
    ),
    (
        r"""since binary search halves the interval each step, the number of comparisons grows logarithmically. the answer is (b).""",
        "B",
        1.0,
        ("O(1)", "O(log n)", "O(n)", "O(n log n)"),
    ),
    (
        r"""Both A and C describe properties of metals that are correct here: metals are good conductors of electricity and they are malleable.

Both A and C are correct.""",
        "A",
        "ambiguous",
        (
            "Good electrical conductors",
            "Brittle in solid form",
            "Malleable",
            "Poor thermal conductors",
        ),
    ),
    (
        r"""The structure could either be a prokaryote or an archaeon based on the description.

ANSWER: B or C""",
        "B",
        "ambiguous",
        ("Virus", "Bacterium", "Archaeon", "Fungus"),
    ),
    (
        r"""Since the question has a twist about leap years, my answer is the sixth option.

ANSWER: F""",
        "E",
        0.0,
        ("364", "365", "366", "367", "368"),
    ),
    (
        r"""The kinetic energy is ½mv² = ½ × 2 × 3² = 9 J.

Final Answer: The final answer is (D). I hope it is correct.""",
        "D",
        1.0,
        ("3 J", "4.5 J", "6 J", "9 J"),
    ),
    (
        r"""Rickets in children is caused by a deficiency of the vitamin that regulates calcium absorption.

Answer: D) Vitamin D""",
        "D",
        1.0,
        ("Vitamin A", "Vitamin B1", "Vitamin C", "Vitamin D", "Vitamin K"),
    ),
    (
        r"""The powerhouse of the cell is where aerobic respiration produces most ATP.

The answer is C: mitochondria.""",
        "C",
        1.0,
        ("Nucleus", "Ribosome", "Mitochondria", "Golgi body"),
    ),
    (
        r"""Water boils at 100 °C at sea level, but at high altitude the boiling point is lower due to reduced pressure.

ANSWER: A""",
        "B",
        0.0,
        ("It increases", "It decreases", "It stays at 100 °C", "It becomes 0 °C"),
    ),
    (
        r"""Let's check each option:

A) 2 — too small, 2² = 4 ≠ 49.
B) 5 — 5² = 25.
C) 7 — 7² = 49 ✓ but the equation is x² = 64.
D) 8 — 8² = 64.

Hmm, I'll stick with my earlier computation.

ANSWER: C""",
        "D",
        0.0,
        ("2", "5", "7", "8"),
    ),
    (
        r"""The Great Wall of China is primarily located in the north of the country.

ANSWER: A""",
        "A",
        1.0,
        None,
    ),
    (
        r"""For an ideal gas at constant temperature, pressure and volume are inversely proportional (Boyle's law).

Correct option: (A)""",
        "A",
        1.0,
        ("Boyle's law", "Charles's law", "Gay-Lussac's law", "Avogadro's law"),
    ),
    (
        r"""Insertion sort performs best on nearly sorted input because each element only needs to move a small distance.

The best choice is **D**.""",
        "D",
        1.0,
        (
            "Selection sort",
            "Heap sort",
            "Quick sort (first-element pivot)",
            "Insertion sort",
        ),
    ),
    (
        r"""A stack follows last-in, first-out order.

**Answer:** `B`""",
        "B",
        1.0,
        ("Queue", "Stack", "Linked list", "Heap"),
    ),
    (
        r"""Option C is the right one: the Pacific Ocean is by far the largest ocean on Earth.""",
        "C",
        1.0,
        ("Atlantic", "Indian", "Pacific", "Arctic"),
    ),
    (
        r"""ANSWER: C

Explanation: Option A is wrong because current is the same everywhere in a series circuit. Option B confuses voltage with resistance, and Option D ignores Ohm's law entirely.""",
        "C",
        1.0,
        (
            "Current splits at each resistor",
            "Voltage equals resistance",
            "Voltages across resistors add up to the source voltage",
            "Current depends only on the first resistor",
        ),
    ),
    (
        r"""I can't decide between A and C here; both seem consistent with the passage.""",
        "A",
        "ambiguous",
        (
            "The author supports the policy",
            "The author is neutral",
            "The author rejects the policy",
            "The author is confused",
        ),
    ),
    (
        r"""Among the options, only a pentagon has five sides... wait, the question asks for eight sides, so octagon.

Answer: E""",
        "E",
        1.0,
        ("Pentagon", "Hexagon", "Heptagon", "Nonagon", "Octagon"),
    ),
    (
        r"""Jupiter is the largest planet in our solar system, more than 300 times the mass of Earth.

(B) Jupiter""",
        "B",
        1.0,
        ("Saturn", "Jupiter", "Neptune", "Uranus"),
    ),
    (
        r"""Linear search must check each element in the worst case, which takes time proportional to n.

ANSWER: O(n)""",
        "C",
        1.0,
        ("O(1)", "O(log n)", "O(n)", "O(n^2)"),
    ),
    (
        r"""The capital of Portugal is Lisbon, located on the Tagus estuary.

The answer is Lisbon.""",
        "A",
        1.0,
        ("Lisbon", "Porto", "Madrid", "Seville"),
    ),
    (
        r"""Hydrogen has atomic number 1, making it the lightest element.

The answer is A.""",
        "A",
        1.0,
        ("Hydrogen", "Helium", "Lithium", "Carbon"),
    ),
    (
        r"""6 × 7 = 42.

Answer: A. 42""",
        "A",
        1.0,
        ("42", "48", "36", "56"),
    ),
    (
        r"""The Berlin Wall fell in November 1989, marking a turning point toward German reunification.

ANSWER: (D)""",
        "B",
        0.0,
        ("1987", "1989", "1990", "1991"),
    ),
    (
        r"""The element with symbol K is potassium.

ANSWER: B

Actually, hold on — potassium is not sodium... the symbol for sodium is Na, and K corresponds to option D.

ANSWER: D""",
        "B",
        0.0,
        ("Sodium", "Potassium", "Krypton", "Calcium"),
    ),
    (
        r"""The answer is not A — that's the distractor for people confusing speed and velocity. It's C.""",
        "C",
        1.0,
        (
            "Speed is a vector",
            "Velocity is a scalar",
            "Velocity includes direction",
            "Speed includes direction",
        ),
    ),
    (
        r"""The frequency is the number of cycles per second, and the SI unit for it is the hertz.

The correct answer is D, not A.""",
        "A",
        0.0,
        ("Hertz", "Joule", "Watt", "Hertz per second"),
    ),
    (
        r"""There are only four choices here (A–D), but I believe the intended answer was omitted.

ANSWER: G""",
        "B",
        0.0,
        ("Red", "Blue", "Green", "Yellow"),
    ),
    (
        r"""The integers 2, 3, 4, 5: which one is prime and even? Only 2... wait, the question asks for the largest prime. That's 5.

ANSWER: 5""",
        "D",
        1.0,
        ("2", "3", "4", "5"),
    ),
    (
        r"""The ratio of circumference to diameter is π for any circle.

$\boxed{B}$""",
        "B",
        1.0,
        ("2", "π", "2π", "π/2"),
    ),
    (
        r"""Mercury is closest to the Sun with an orbital period of about 88 days.

Final choice: **(A) Mercury**""",
        "A",
        1.0,
        ("Mercury", "Venus", "Earth", "Mars"),
    ),
    (
        r"""Using I = V/R = 9 V / 6 Ω = 1.5 A.

Answer: C — 1.5 A""",
        "C",
        1.0,
        ("0.5 A", "1 A", "1.5 A", "54 A"),
    ),
    (
        r"""Let me think about which data structure is best for FIFO processing of print jobs.

A queue processes items in the order they arrive.

ANSWER: A""",
        "C",
        0.0,
        ("Stack", "Binary tree", "Queue", "Hash map"),
    ),
    (
        r"""The Mona Lisa was painted by Leonardo da Vinci in the early 16th century.

**Answer: (B) Leonardo da Vinci**""",
        "B",
        1.0,
        ("Michelangelo", "Leonardo da Vinci", "Raphael", "Donatello"),
    ),
    (
        r"""Amino acids are joined by peptide bonds to form proteins.

The answer is (C).""",
        "C",
        1.0,
        (
            "Glycosidic bonds",
            "Hydrogen bonds",
            "Peptide bonds",
            "Ester bonds",
            "Ionic bonds",
        ),
    ),
    (
        r"""Work = force × distance = 10 N × 5 m = 50 J.

I'm confident the answer is E.""",
        "E",
        1.0,
        ("2 J", "5 J", "10 J", "15 J", "50 J"),
    ),
    (
        r"""Hmm, the boiling point could be affected by impurities or pressure. It might be A, but it could also be D if the pressure is high. I'm not sure.""",
        "D",
        "ambiguous",
        ("Below 100 °C", "Exactly 0 °C", "Exactly 50 °C", "Above 100 °C"),
    ),
    (
        r"""For the equation 2x + 3 = 11, subtracting 3 gives 2x = 8, so x = 4.

ANSWER: B""",
        "B",
        1.0,
        ("3", "4", "5", "8"),
    ),
    (
        r"""For the equation 2x + 3 = 11, x = 4.

ANSWER: D""",
        "B",
        0.0,
        ("3", "4", "5", "8"),
    ),
    (
        r"""DNA replication is semi-conservative, as shown by the Meselson–Stahl experiment.

**Final Answer:** B""",
        "B",
        1.0,
        ("Conservative", "Semi-conservative", "Dispersive", "Random"),
    ),
    (
        r"""The speed of sound in air at room temperature is roughly 343 m/s.

Answer: (C) 343 m/s""",
        "C",
        1.0,
        ("30 m/s", "150 m/s", "343 m/s", "3 × 10^8 m/s"),
    ),
    (
        r"""Shakespeare wrote Hamlet around 1600.

ANSWER: Christopher Marlowe""",
        "A",
        0.0,
        ("William Shakespeare", "Christopher Marlowe", "Ben Jonson", "John Milton"),
    ),
    (
        r"""The largest desert by area, if we include polar deserts, is Antarctica.

ANSWER: D. Antarctica""",
        "D",
        1.0,
        ("Sahara", "Gobi", "Arabian", "Antarctica"),
    ),
    (
        r"""Between the options, the chemical formula for table salt is NaCl. I'd say it's A, although B is possible too if they mean potassium chloride salt substitutes.

ANSWER: A or B""",
        "A",
        "ambiguous",
        ("NaCl", "KCl", "CaCO3", "H2O"),
    ),
    (
        r"""To find the median of {3, 8, 1, 9, 5}, sort: {1, 3, 5, 8, 9}. The middle value is 5.

The correct answer is **C**.""",
        "C",
        1.0,
        ("1", "3", "5", "8", "9"),
    ),
    (
        r"""Let's evaluate the options:
(A) 12 — this would be the perimeter of a 3×3 square.
(B) 9 — the area of a 3×3 square. ✓
(C) 6 — twice the side length.
(D) 3 — just the side.

The area is 9.

ANSWER: (B)""",
        "B",
        1.0,
        ("12", "9", "6", "3"),
    ),
    (
        r"""Tokyo has been the capital of Japan since 1868.

Answer: Tokyo""",
        "B",
        1.0,
        ("Kyoto", "Tokyo", "Osaka", "Nara"),
    ),
    (
        r"""Kyoto was the imperial capital for over a thousand years, so it remains the capital.

Answer: Kyoto""",
        "B",
        0.0,
        ("Kyoto", "Tokyo", "Osaka", "Nara"),
    ),
    (
        r"""Option analysis:
A. Helium — noble gas, not reactive.
B. Fluorine — the most electronegative element (3.98 on the Pauling scale).
C. Oxygen — highly electronegative, but less than fluorine.
D. Chlorine — also high, but below fluorine.

So I'll pick B.""",
        "B",
        1.0,
        ("Helium", "Fluorine", "Oxygen", "Chlorine"),
    ),
    (
        r"""The hypotenuse of a right triangle with legs 6 and 8 is √(36 + 64) = √100 = 10.

#### D""",
        "D",
        1.0,
        ("7", "8", "9", "10"),
    ),
    (
        r"""A prime number has exactly two distinct positive divisors. Among the options, 9 = 3 × 3, 15 = 3 × 5, 21 = 3 × 7, and 13 is prime.

ANSWER: C""",
        "C",
        1.0,
        ("9", "15", "13", "21"),
    ),
    (
        r"""Light-years measure distance, not time.

The answer is B) distance.""",
        "B",
        1.0,
        ("Time", "Distance", "Speed", "Brightness"),
    ),
    (
        r"""The pH of pure water at 25 °C is 7.

ANSWER: B""",
        "C",
        0.0,
        ("0", "1", "7", "14"),
    ),
    (
        r"""Either (A) or (C) would be accepted depending on the textbook.

Answer: A/C""",
        "C",
        "ambiguous",
        ("Isotopes", "Isomers", "Isotones", "Isobars"),
    ),
    (
        r"""**Step 1:** The object is in equilibrium, so the net force is zero.
**Step 2:** The friction force must equal the applied force of 20 N.

**Answer:** **A) 20 N**""",
        "A",
        1.0,
        ("20 N", "10 N", "0 N", "40 N"),
    ),
    (
        r"""The half-life question depends on whether we count from the start of the measurement or from the first decay event. So the answer is B (if counted from the start) or C (otherwise).""",
        "B",
        "ambiguous",
        ("2 years", "4 years", "6 years", "8 years"),
    ),
    (
        r"""I believe the answer is D) Photosynthesis, because it converts light energy into chemical energy stored in glucose.""",
        "D",
        1.0,
        ("Respiration", "Fermentation", "Transpiration", "Photosynthesis"),
    ),
]


EXACT_MATCH = [
    (
        r"""The Battle of Hastings was fought between the Norman-French army of William the Conqueror and the English army under Harold Godwinson.

ANSWER: `1066`""",
        "1066",
        1.0,
    ),
    (
        r"""The organelle that synthesizes proteins by translating mRNA is the ribosome.

ANSWER: "ribosome".""",
        "ribosome",
        1.0,
    ),
    (
        r"""Australia's capital was chosen as a compromise between Sydney and Melbourne.

ANSWER: [Canberra]""",
        "Canberra",
        1.0,
    ),
    (
        r"""The largest planet in the solar system, a gas giant with the Great Red Spot, is

ANSWER: _Jupiter_""",
        "Jupiter",
        1.0,
    ),
    (
        r"""Germany, France, and Italy all use the same currency.

ANSWER: $\text{euro}$""",
        "euro",
        1.0,
    ),
    (
        r"""Japan's capital city, and its largest metropolitan area, is Tokyo.

$$\boxed{\text{Tokyo}}$$""",
        "Tokyo",
        1.0,
    ),
    (
        r"""The eighth and farthest known planet from the Sun is an ice giant.

Answer: Neptune!""",
        "Neptune",
        1.0,
    ),
    (
        r"""The gas that makes up about 21% of Earth's atmosphere and is needed for respiration:

Answer：Oxygen""",
        "oxygen",
        1.0,
    ),
    (
        r"""India's currency is subdivided into 100 paise. The answer is rupee.""",
        "rupee",
        1.0,
    ),
    (
        r"""About 78% of the atmosphere by volume consists of this diatomic gas.

<answer>nitrogen</answer>""",
        "nitrogen",
        1.0,
    ),
    (
        r"""The capital of Canada is located in the province of Ontario.

ANSWER: OTTAWA""",
        "Ottawa",
        1.0,
    ),
    (
        r"""Canada's largest city is also its capital and financial center.

ANSWER: Toronto""",
        "Ottawa",
        0.0,
    ),
    (
        r"""The planet farthest from the Sun is a blue ice giant.

ANSWER: Neptun""",
        "Neptune",
        0.0,
    ),
    (
        r"""The capital of Australia is

ANSWER: Canbera""",
        "Canberra",
        0.0,
    ),
    (
        r"""The capital of Canada is one of two cities — I'm not entirely sure which one holds the title.

ANSWER: Ottawa or Toronto""",
        "Ottawa",
        "ambiguous",
    ),
    (
        r"""The painter of the Mona Lisa was an Italian polymath of the High Renaissance.

**Final Answer:** Leonardo da Vinci""",
        "Leonardo da Vinci",
        1.0,
    ),
    (
        r"""Plants convert light energy into chemical energy stored in glucose through a process called

**Answer:** **photosynthesis**""",
        "photosynthesis",
        1.0,
    ),
    (
        r"""The hottest planet is the one closest to the Sun.

ANSWER: Mercury

Wait — Venus is actually hotter than Mercury because of its thick CO₂ atmosphere and runaway greenhouse effect.

ANSWER: Venus""",
        "Venus",
        1.0,
    ),
    (
        r"""Diamonds and graphite are both allotropes of the same element.

Final Answer: The final answer is $\text{carbon}$. I hope it is correct.""",
        "carbon",
        1.0,
    ),
    (
        r"""Romeo and Juliet was written in the 1590s by the English playwright.
#### Shakespeare""",
        "Shakespeare",
        1.0,
    ),
    (
        r"""Is 51 a prime number? 51 = 3 × 17, so it is composite.

ANSWER: false""",
        "False",
        1.0,
    ),
    (
        r"""Does water expand when it freezes? Yes — ice is less dense than liquid water, which is why it floats.

**True**""",
        "True",
        1.0,
    ),
    (
        r"""The chemical symbol for gold comes from the Latin word "aurum".

The answer is *Au*.""",
        "Au",
        1.0,
    ),
    (
        r"""The largest ocean on Earth covers about a third of the planet's surface.

The answer is Pacific. Step 2: The Atlantic is the second largest, followed by the Indian Ocean.""",
        "Pacific",
        1.0,
    ),
    (
        r"""Two hydrogen atoms bonded to one oxygen atom form water.

answer: h2o""",
        "H2O",
        1.0,
    ),
    (
        r"""The capital of Germany since reunification:

Answer: 'Berlin'.""",
        "Berlin",
        1.0,
    ),
    (
        r"""The second element in the periodic table is a noble gas used in balloons.

Answer:
\[
\text{helium}
\]""",
        "helium",
        1.0,
    ),
    (
        r"""The largest planet in the solar system is the one with prominent rings.

Answer: Saturn""",
        "Jupiter",
        0.0,
    ),
    (
        r"""The largest city in Australia by population... it's either Sydney or Melbourne; they're very close.""",
        "Sydney",
        "ambiguous",
    ),
    (
        r"""The author of Hamlet and Macbeth:

ANSWER: Shakespear""",
        "Shakespeare",
        0.0,
    ),
    (
        r"""The first President of the United States served from 1789 to 1797.

ANSWER: george washington""",
        "George Washington",
        1.0,
    ),
    (
        r"""The longest river in Africa flows north into the Mediterranean.

ANSWER: **Nile**.""",
        "Nile",
        1.0,
    ),
    (
        r"""In Python 3, the built-in function used to write text to standard output is

ANSWER: `print`""",
        "print",
        1.0,
    ),
    (
        r"""The program concatenates "hello" and " world", so running it outputs:

ANSWER: `hello world`""",
        "hello world",
        1.0,
    ),
    (
        r"""The type of cell division that produces two genetically identical daughter cells is

<answer> Mitosis </answer>""",
        "mitosis",
        1.0,
    ),
    (
        r"""Many people think the Nile is the river with the greatest discharge, but by volume of water the largest river is in South America.

Final Answer: Amazon""",
        "Amazon",
        1.0,
    ),
    (
        r"""The closest planet to the Sun:

ANSWER: Mercury

Note: Venus is the hottest planet, though, despite being farther away.""",
        "Mercury",
        1.0,
    ),
    (
        r"""The chemical symbol for silver is either Au or Ag — I always mix those two up.

ANSWER: Au or Ag""",
        "Ag",
        "ambiguous",
    ),
    (
        r"""The bond in NaCl forms between a metal and a nonmetal with a large electronegativity difference. Still, I'm torn between ionic and covalent.""",
        "ionic",
        "ambiguous",
    ),
    (
        r"""NaCl forms through electron transfer from sodium to chlorine.

ANSWER: covalent""",
        "ionic",
        0.0,
    ),
    (
        r"""NaCl forms through electron transfer from sodium to chlorine, creating oppositely charged ions.

**Answer:** Ionic""",
        "ionic",
        1.0,
    ),
    (
        r"""The currency of the United Kingdom is the pound sterling, and the currency of Japan is the

ANSWER: $\text{yen}$""",
        "yen",
        1.0,
    ),
    (
        r"""The currency of China is the renminbi, whose unit is the

ANSWER: won""",
        "yuan",
        0.0,
    ),
    (
        r"""The powerhouse of the cell is the organelle where ATP is produced.

\boxed{\text{mitochondria}}""",
        "mitochondria",
        1.0,
    ),
    (
        r"""The process by which a liquid becomes a gas at its surface below boiling point is

Answer: `evaporation`.""",
        "evaporation",
        1.0,
    ),
    (
        r"""The process by which a gas turns into a liquid:

Answer: evaporation""",
        "condensation",
        0.0,
    ),
    (
        r"""The smallest prime number:

The answer is **2**.""",
        "2",
        1.0,
    ),
    (
        r"""The hardest natural substance on the Mohs scale:

Answer：Diamond""",
        "diamond",
        1.0,
    ),
    (
        r"""The Statue of Liberty was a gift from France to the United States in 1886.

ANSWER: "France"!""",
        "France",
        1.0,
    ),
    (
        r"""The language with the most native speakers worldwide is Mandarin Chinese.

ANSWER: Mandarin""",
        "Mandarin",
        1.0,
    ),
    (
        r"""The first person to walk on the Moon (Apollo 11, 1969):

**Final Answer:** Neil Armstrong""",
        "Neil Armstrong",
        1.0,
    ),
    (
        r"""The first person to walk on the Moon during the Apollo 11 mission:

**Final Answer:** Buzz Aldrin""",
        "Neil Armstrong",
        0.0,
    ),
    (
        r"""The first person to walk on the Moon:

ANSWER: Niel Armstrong""",
        "Neil Armstrong",
        0.0,
    ),
    (
        r"""The SQL keyword used to remove duplicate rows from query results is `DISTINCT`.

ANSWER: distinct""",
        "DISTINCT",
        1.0,
    ),
    (
        r"""The Git command used to create a copy of a remote repository is

<answer>`clone`</answer>""",
        "clone",
        1.0,
    ),
    (
        r"""The largest bone in the human body:

Answer: femur.""",
        "femur",
        1.0,
    ),
    (
        r"""The bone that protects the brain:

Answer: Either the skull or the cranium — both are used.""",
        "skull",
        "ambiguous",
    ),
    (
        r"""The composer of the "Moonlight Sonata" went deaf later in life.

The answer is Beethoven.""",
        "Beethoven",
        1.0,
    ),
    (
        r"""The composer of The Magic Flute:

The answer is Mozart. He also wrote Don Giovanni and the Requiem in D minor.""",
        "Mozart",
        1.0,
    ),
    (
        r"""The composer of The Magic Flute:

The answer is Mozzart.""",
        "Mozart",
        0.0,
    ),
    (
        r"""The red planet, named after the Roman god of war:

**ANSWER:** `Mars`""",
        "Mars",
        1.0,
    ),
    (
        r"""To reverse a list in place in Python, call the method:

ANSWER: reverse""",
        "reverse",
        1.0,
    ),
    (
        r"""The imaginary line at 0° latitude that divides the Earth into northern and southern hemispheres:

Answer: Equator""",
        "equator",
        1.0,
    ),
    (
        r"""Which gas do plants absorb from the air for photosynthesis?

Let's think: plants release oxygen and take in carbon dioxide.

ANSWER: oxygen""",
        "carbon dioxide",
        0.0,
    ),
    (
        r"""Which gas do plants absorb during photosynthesis?

Plants take in CO₂ and release O₂.

ANSWER: Carbon Dioxide""",
        "carbon dioxide",
        1.0,
    ),
    (
        r"""The author of "1984" and "Animal Farm":

ANSWER: \textbf{George Orwell}""",
        "George Orwell",
        1.0,
    ),
    (
        r"""The author of "Pride and Prejudice":

Final Answer: $\boxed{\text{Jane Austen}}$""",
        "Jane Austen",
        1.0,
    ),
    (
        r"""The author of "Pride and Prejudice" was one of the Brontë sisters, probably Charlotte — or maybe it was Jane Austen. I'm not certain.

ANSWER: Charlotte Brontë or Jane Austen""",
        "Jane Austen",
        "ambiguous",
    ),
    (
        r"""The tallest mountain above sea level is in the Himalayas on the Nepal–China border.

ANSWER: K2

Hmm, actually K2 is the second-highest. The tallest is Everest.

ANSWER: Everest""",
        "Everest",
        1.0,
    ),
    (
        r"""The tallest mountain above sea level:

ANSWER: Everest

Wait, I think K2 is taller because it's harder to climb.

ANSWER: K2""",
        "Everest",
        0.0,
    ),
    (
        r"""The unit of electrical resistance is named after a German physicist.

ANSWER: ohm!""",
        "ohm",
        1.0,
    ),
    (
        r"""The unit of electric current in SI:

ANSWER: volt""",
        "ampere",
        0.0,
    ),
    (
        r"""The capital of Italy is home to the Colosseum — though Milan is the economic capital.

**Answer:** Rome or Milan""",
        "Rome",
        "ambiguous",
    ),
    (
        r"""The noble gas used in bright red advertising signs:

ANSWER: neon, possibly argon""",
        "neon",
        "ambiguous",
    ),
    (
        r"""The quickest way to check the HTTP status code for "Not Found":

<answer>404</answer>""",
        "404",
        1.0,
    ),
]
