"""Replies in the failure families of issue 13 (units with exponents, powers of ten,
mixed numbers, an answer label followed by display math, truncated replies, asides,
hedges), written without reading the scorers' code; scored 180 of 180 before any
change was made for it. Verdicts as in cases_units_and_notation.py.
"""
# Held-out test set of realistic LLM replies with careful-human verdicts.

NUMERIC = [
    # --- units with exponents: the exponent is not the answer ---
    (
        "The rectangle measures 6 cm by 4 cm, so its area is 6 × 4 = 24 cm^2.\nANSWER: 24 cm^2",
        24,
        1.0,
    ),
    (
        "Volume = length × width × height = 2 m × 3 m × 1.5 m = 9 m^3.\n\nANSWER: 9 m^3",
        9,
        1.0,
    ),
    ("a = Δv / Δt = (30 m/s − 0 m/s) / 6 s = 5 m/s².\nANSWER: 5 m/s²", 5, 1.0),
    (
        "The reserve is a 2.5 km by 1.4 km rectangle, so its area is 2.5 × 1.4 = 3.5 km².\nANSWER: 3.5 km²",
        3.5,
        1.0,
    ),
    (
        "Area of a circle: πr² = 3.14 × 5² = 3.14 × 25 = 78.5 m².\nANSWER: 78.5 m²",
        78.5,
        1.0,
    ),
    (
        "Near Earth's surface, free-fall acceleration is approximately 9.8 m/s^2.\nANSWER: 9.8 m/s^2",
        9.8,
        1.0,
    ),
    (
        "density = mass / volume = 54 g / 20 cm³ = 2.7 g/cm³\n\nANSWER: 2.7 g/cm³",
        2.7,
        1.0,
    ),
    (
        "Each side of the square is 3 cm, so the area is 3 × 4 = 12 cm^2.\nANSWER: 12 cm^2",
        9,
        0.0,
    ),
    ("V = l × w × h = 5 × 5 × 2 = 50 cm^3\nANSWER: 50 cm^3", 3, 0.0),
    ("Area = 4 m × 2 m = 8 m^2.\nANSWER: 8 m^2", 2, 0.0),
    ("The side length is 12 cm, so the area is 144 cm².\nANSWER: 144 cm²", 12, 0.0),
    ("a = (6 − 4) / 4 = 0.5 m/s²\nANSWER: 0.5 m/s²", 2, 0.0),
    # --- powers of ten ---
    ("One gram contains one million micrograms.\nANSWER: 10^6", 1000000, 1.0),
    ("A gigabyte (SI) is a billion bytes.\n\nANSWER: 10^{9}", 1e9, 1.0),
    (
        r"Dividing 5 mg by 2 L gives a concentration of $2.5 \times 10^{-3}$ g/L."
        "\n"
        r"ANSWER: $2.5 \times 10^{-3}$",
        0.0025,
        1.0,
    ),
    ("Total population of the region: 4.0×10⁵ people.\nANSWER: 4.0×10⁵", 400000, 1.0),
    (
        "The speed of light in vacuum is about 3.0 × 10^8 m/s.\nANSWER: 3.0 × 10^8 m/s",
        3e8,
        1.0,
    ),
    (
        "Avogadro's number is about 6.02 × 10^{22} per mole.\nANSWER: 6.02 × 10^{22}",
        6.02e23,
        0.0,
    ),
    ("v = d / t = 6000 m / 3 s = 2.0 × 10^3 m/s\nANSWER: 2.0 × 10^3 m/s", 2000, 1.0),
    ("Rate constant k = 1.2 x 10^-4 per second.\nANSWER: 1.2 x 10^-4", 0.00012, 1.0),
    ("n = c × V = 0.05 mol/L × 0.1 L = 5 × 10⁻³ mol\nANSWER: 5 × 10⁻³ mol", 0.005, 1.0),
    # --- mixed numbers and fractions ---
    (
        "The recipe calls for 1 1/2 cups, and she makes 1.5 batches: 1.5 × 1.5 = 2.25 cups.\nShe needs 2 1/4 cups of flour.\nANSWER: 2 1/4",
        2.25,
        1.0,
    ),
    ("He walks 7 km at 2 km/h, which takes 3.5 hours.\nANSWER: 3 1/2 hours", 3.5, 1.0),
    (
        "Adding 5/8 + 7/8 gives 12/8 = 1 1/2, but then I add the extra 1/4 to get 1 3/4.\nANSWER: 1 3/4",
        1.5,
        0.0,
    ),
    (
        "The board is 4 3/8 inches wide after trimming.\nANSWER: 4 3/8 inches",
        4.375,
        1.0,
    ),
    ("17 thirds of a pizza is 5 2/3 pizzas.\nANSWER: 5 2/3", 17 / 3, 1.0),
    (
        r"Three of the four quarters remain, so the fraction left is \frac34."
        "\n"
        r"ANSWER: \frac34",
        0.75,
        1.0,
    ),
    (r"ANSWER: $\frac{7}{8}$", 0.875, 1.0),
    (
        r"The slope is rise over run: $\dfrac{5}{2}$." "\n" r"ANSWER: $\dfrac{5}{2}$",
        2.5,
        1.0,
    ),
    (r"ANSWER: $\dfrac{5}{3}$", 2.5, 0.0),
    (
        r"The probability of rolling a 4 on a fair die is \(\frac{1}{6}\)."
        "\n"
        r"ANSWER: \(\frac{1}{6}\)",
        1 / 6,
        1.0,
    ),
    (
        r"The slope of the line through (0, 3) and (6, 0) is $-\frac{1}{2}$."
        "\n"
        r"ANSWER: $-\frac{1}{2}$",
        -0.5,
        1.0,
    ),
    (
        r"Simplifying, $\frac{18}{8} = \frac{9}{4}$. Therefore the final answer is $\boxed{\frac{9}{4}}$.",
        2.25,
        1.0,
    ),
    # --- "Answer:" followed by display math on later lines ---
    (
        r"""We have 6 × 7 = 42 widgets in total.

Answer:
\[
\boxed{42}
\]""",
        42,
        1.0,
    ),
    (
        r"""The ratio of red marbles to all marbles is 9/15, which reduces to 3/5.

Answer:
$$
\frac{3}{5}
$$""",
        0.6,
        1.0,
    ),
    (
        r"""Subtracting 20 from 8 gives the final temperature change.

Answer:
\[ \boxed{-12} \]""",
        -12,
        1.0,
    ),
    (
        r"""The sum of the first 9 odd numbers is 9 × 2:

Answer:
$$ 18 $$""",
        81,
        0.0,
    ),
    (
        r"""Population after two doublings: 6250 × 4 = 25000.

Answer:
$$
\boxed{2.5 \times 10^{4}}
$$""",
        25000,
        1.0,
    ),
    # --- spaced minus ---
    ("x + 10 = 3, so x = 3 − 10.\nANSWER: - 7", -7, 1.0),
    ("The temperature dropped 3.5 degrees below zero.\nANSWER: - 3.5", -3.5, 1.0),
    ("Solving 2x = −14 gives the root.\nANSWER: - 7", 7, 0.0),
    # --- truncated replies ---
    (
        "The train covers 240 km in 3.2 hours. To find the average speed we divide distance by time, so the rate is 240 / 3.2",
        75,
        0.0,
    ),
    (
        "First compute the total: 12 + 15 + 18 = 45. Then divide by the number of items, 45 /",
        15,
        0.0,
    ),
    # --- answer first, then further steps with other numbers ---
    (
        "The answer is 12. Step 2: verify by multiplying 12 × 3 = 36, and 36 + 4 = 40, which matches the given total of 40.",
        12,
        1.0,
    ),
    (
        "The answer is 7. Step 2: Check: 7 × 8 = 56, and 56 − 6 = 50, consistent with the problem.",
        7,
        1.0,
    ),
    ("The answer is 15. Step 2: as a check, 15 − 3 = 12 and 12 / 4 = 3.", 12, 0.0),
    # --- parenthetical after the answer ---
    ("Eight rows of five chairs each.\nANSWER: 40 (that is, 8 × 5)", 40, 1.0),
    ("ANSWER: 63 (i.e., 7 × 9)", 63, 1.0),
    # --- other formats ---
    (
        "Of the 200 students surveyed, 70 prefer tea, which is 35%.\nANSWER: 35%",
        35,
        1.0,
    ),
    ("Total cost: 5 × $250 = $1,250.\nANSWER: $1,250", 1250, 1.0),
    (
        """Let x be the number of apples. Then the number of oranges is x + 5 and the number of pears is 2x.
Total fruit: x + (x + 5) + 2x = 4x + 5 = 73.
So 4x = 68 and x = 17.
Check: 17 + 22 + 34 = 73. ✓
ANSWER: 17""",
        17,
        1.0,
    ),
    (
        """Let the tens digit be a and the units digit be b, with a + b = 9 and a − b = 5.
Adding the equations: 2a = 14, so a = 7 and b = 2.
Writing the digits out, the number is 27.
ANSWER: 27""",
        72,
        0.0,
    ),
    (
        "I'm not sure how to solve this without more information about the initial velocity.",
        12,
        0.0,
    ),
    # --- hedges and ranges ---
    (
        "It depends on which quantity you put in the numerator, so the ratio is either 3 or 1/3.\nANSWER: either 3 or 1/3",
        3,
        "ambiguous",
    ),
    (
        "Based on the growth rates, the team will need somewhere around 15-18 new hires.\nANSWER: 15-18",
        16,
        "ambiguous",
    ),
    (
        "Since 8² = 64 < 70 < 81 = 9², the square root of 70 is between 8 and 9.\nANSWER: between 8 and 9",
        8,
        "ambiguous",
    ),
    (
        "The crowd was estimated at about 20 to 25 thousand people.\nANSWER: about 20 to 25",
        22,
        "ambiguous",
    ),
    (
        "Depending on traffic, the trip should take 40–45 minutes.\nANSWER: 40–45",
        42,
        "ambiguous",
    ),
    (
        "So the answer is either 12 or 14; the problem statement doesn't let me decide which.",
        12,
        "ambiguous",
    ),
    ("The floor plan could be read two ways.\nANSWER: 1.5 or 2 m^2", 1.5, "ambiguous"),
]

# Choice sets (option A first)
POWER = ("10 W", "15 W", "25 W", "50 W")
BIGO = ("O(1)", "O(log n)", "O(n)", "O(n^2)")
FORCE = ("3 N", "6 N", "9 N", "12 N")
CELL = ("Nucleus", "Mitochondria", "Ribosome", "Golgi apparatus")
CAPITAL = ("Sydney", "Melbourne", "Canberra", "Perth")
PLANET = ("Mercury", "Venus", "Earth", "Mars", "Jupiter")
GAS = ("Oxygen", "Nitrogen", "Carbon dioxide", "Argon")
AUTHOR = ("Charles Dickens", "Jane Austen", "George Eliot", "Thomas Hardy")
WAR = ("1914", "1918", "1939", "1945")
ECON = (
    "Inflation rises",
    "Unemployment falls",
    "Interest rates fall",
    "Bond prices fall",
    "Money supply expands",
)
DERIV = ("2x", "x^2", "2", "x")
PH = ("pH 2", "pH 5", "pH 7", "pH 12")
STATS = ("Mean", "Median", "Mode", "Range")
PROG = ("list", "tuple", "dict", "set")
GEO = ("Nile", "Amazon", "Yangtze", "Mississippi")
HIST = (
    "Magna Carta",
    "Declaration of Independence",
    "Treaty of Versailles",
    "Bill of Rights",
    "Emancipation Proclamation",
)
CHEM = ("Ionic", "Covalent", "Metallic", "Hydrogen")
PERIM = ("12", "16", "20", "24")

MULTIPLE_CHOICE = [
    ("P = V²/R = 50² / 100 = 2500 / 100 = 25 W.\nANSWER: (C) 25 W", "C", 1.0, POWER),
    (
        "The correct answer is C, not A. Option A comes from forgetting to square the voltage.",
        "C",
        1.0,
        POWER,
    ),
    ("The correct answer is A, not C.", "C", 0.0, POWER),
    ("(C) 25 W", "C", 1.0, POWER),
    ("It's either A or C.", "C", "ambiguous", POWER),
    (
        "Bubble sort compares adjacent pairs inside nested loops, so its worst case is quadratic.\n\n**D) O(n^2)**",
        "D",
        1.0,
        BIGO,
    ),
    (
        "Binary search halves the interval at each step, but in the worst case...\n\n**D) O(n^2)**",
        "B",
        0.0,
        BIGO,
    ),
    ("B or D, I can't tell.", "B", "ambiguous", BIGO),
    ("A hash table lookup is constant time on average.\nANSWER: A", "A", 1.0, BIGO),
    ("F = ma = 1.5 kg × 2 m/s² = 3 N.\nANSWER: (A) 3 N", "A", 1.0, FORCE),
    ("(A) 3 N", "B", 0.0, FORCE),
    (
        "The forces act in opposite directions, so the net force is 12 N − 6 N = 6 N. B is correct.",
        "B",
        1.0,
        FORCE,
    ),
    (
        "Both forces point the same way, so they add: 3 N + 6 N = 9 N. C is the right choice.",
        "C",
        1.0,
        FORCE,
    ),
    ("D is the right choice.", "D", 1.0, FORCE),
    ("D is the right choice.", "A", 0.0, FORCE),
    ("ANSWER: F", "B", 0.0, CELL),
    ("After weighing the options, I'd go with E.\nANSWER: E", "C", 0.0, CAPITAL),
    ("ANSWER: Mitochondria", "B", 1.0, CELL),
    (
        "The powerhouse of the cell produces most of its ATP through oxidative phosphorylation.\nANSWER: Mitochondria",
        "B",
        1.0,
        CELL,
    ),
    ("ANSWER: Ribosome", "B", 0.0, CELL),
    (
        "Proteins are synthesized on ribosomes, which read the mRNA. I'd pick (c)",
        "C",
        1.0,
        CELL,
    ),
    ("Nitrogen makes up about 78% of the atmosphere. I'd pick (b)", "B", 1.0, GAS),
    ("I'd pick (b)", "C", 0.0, CAPITAL),
    (
        """Let's consider each option.
(A) Sydney is Australia's largest city, but it is not the capital.
(B) Melbourne served as the temporary seat of government from 1901 to 1927, but it is not the capital today.
(C) Canberra was purpose-built as a compromise between Sydney and Melbourne and has been the capital since 1927.
(D) Perth is the capital of Western Australia, a state, not of the nation.

Therefore the answer is C.""",
        "C",
        1.0,
        CAPITAL,
    ),
    (
        """Let's look at each gas.
- Oxygen (A) is what we breathe and is essential to life, and it is the most common gas we encounter.
- Nitrogen (B) is largely inert and mostly found bound in soil.
- Carbon dioxide (C) is a trace gas at roughly 0.04%.
- Argon (D) is a noble gas at under 1%.

So the most abundant gas in Earth's atmosphere is A.""",
        "B",
        0.0,
        GAS,
    ),
    ("ANSWER: E", "E", 1.0, PLANET),
    ("ANSWER: G", "E", 0.0, PLANET),
    (
        "Jupiter is by far the largest planet, more than 300 times Earth's mass.\nANSWER: Jupiter",
        "E",
        1.0,
        PLANET,
    ),
    (
        "Mars or Jupiter, I'm torn between them. Probably D or E.",
        "E",
        "ambiguous",
        PLANET,
    ),
    ("ANSWER: c", "C", 1.0, PH),
    ("Answer: [B]", "B", 1.0, STATS),
    (
        r"""The median depends only on the middle value(s), so extreme values do not move it.

Final answer: $\boxed{B}$""",
        "B",
        1.0,
        STATS,
    ),
    (
        "I first leaned toward A, but after rechecking, the answer is B.",
        "B",
        1.0,
        STATS,
    ),
    (
        "I considered the median, but the mode is what stays fixed here. ANSWER: C",
        "B",
        0.0,
        STATS,
    ),
    ("ANSWER: A, C", "A", "ambiguous", CHEM),
    (
        "This question is tricky, and each of the options has some merit depending on how you interpret it.",
        "A",
        0.0,
        CHEM,
    ),
    (
        "Sodium chloride forms by electron transfer from Na to Cl, giving an ionic lattice.\nANSWER: A) Ionic",
        "A",
        1.0,
        CHEM,
    ),
    (
        "Sodium and chlorine share a pair of electrons, so the bond is covalent: option B.",
        "A",
        0.0,
        CHEM,
    ),
    ("Pride and Prejudice (1813) was written by Jane Austen (B).", "B", 1.0, AUTHOR),
    (
        "The answer is either (A) or (C); both seem plausible to me.",
        "B",
        "ambiguous",
        AUTHOR,
    ),
    ("ANSWER: Charles Dickens", "B", 0.0, AUTHOR),
    (
        "World War II ended with Japan's surrender in September 1945.\nANSWER: D) 1945",
        "D",
        1.0,
        WAR,
    ),
    ("ANSWER: 1945", "D", 1.0, WAR),
    (
        "The armistice was signed in November of that year.\nANSWER: (B) 1918",
        "D",
        0.0,
        WAR,
    ),
    ("By the power rule, d/dx x^2 = 2x^1 = 2x.\nANSWER: A", "A", 1.0, DERIV),
    ("Differentiating twice gives a constant.\nANSWER: C", "A", 0.0, DERIV),
    (
        "Pure water at 25 °C has a hydrogen ion concentration of 10^-7 M.\n\nThe correct option is (C) pH 7.",
        "C",
        1.0,
        PH,
    ),
    ("Either B or C — the wording is unclear.", "C", "ambiguous", PH),
    (
        "Tuples cannot be modified after creation, so the immutable type is **B) tuple**.",
        "B",
        1.0,
        PROG,
    ),
    ("ANSWER: dict", "B", 0.0, PROG),
    (
        """Let's go through the rivers:
- A) The Nile is the longest river by most measurements, but its discharge is modest (~2,800 m³/s).
- B) The Amazon has an average discharge around 209,000 m³/s, far more than any other river.
- C) The Yangtze discharges about 30,000 m³/s.
- D) The Mississippi discharges about 17,000 m³/s.

Since the question asks about the volume of water discharged, not length, the best answer is B.""",
        "B",
        1.0,
        GEO,
    ),
    (
        "The Amazon discharges more water than any other river. Answer: (B)",
        "B",
        1.0,
        GEO,
    ),
    (
        "The Magna Carta was sealed by King John at Runnymede in 1215.\nANSWER: A",
        "A",
        1.0,
        HIST,
    ),
    ("ANSWER: F", "A", 0.0, HIST),
    (
        "When rates rise, existing bonds paying lower coupons become less attractive, so their prices fall. D is correct.",
        "D",
        1.0,
        ECON,
    ),
    ("ANSWER: Inflation rises or bond prices fall", "D", "ambiguous", ECON),
    ("The perimeter is 2 × (5 + 3) = 16.\nANSWER: B", "B", 1.0, PERIM),
    ("Perimeter = 5 + 3 + 5 + 3 = 16.\nANSWER: 16", "B", 1.0, PERIM),
    (
        "The correct answer is B, not D. Option D would be the result if you added the sides three times.",
        "B",
        1.0,
        PERIM,
    ),
    ("I'd say A, but it could also be D.", "B", "ambiguous", PERIM),
]

EXACT_MATCH = [
    ("ANSWER: `Ag`", "Ag", 1.0),
    (
        "The chemical symbol for silver comes from the Latin word argentum.\n\nANSWER: `Ag`",
        "Ag",
        1.0,
    ),
    ('ANSWER: "photosynthesis"', "photosynthesis", 1.0),
    (
        'Plants convert light energy into chemical energy. The process is called "photosynthesis."',
        "photosynthesis",
        1.0,
    ),
    ("ANSWER: [Mars]", "Mars", 1.0),
    ("ANSWER: _Mars_", "Mars", 1.0),
    (r"ANSWER: $\text{euro}$", "euro", 1.0),
    (r"ANSWER: \boxed{\text{Rome}}", "Rome", 1.0),
    ("ANSWER: Mars!", "Mars", 1.0),
    ("ANSWER: Canberra?", "Canberra", 1.0),
    ("ANSWER：Mars", "Mars", 1.0),
    ("The answer is euro.", "euro", 1.0),
    ("<answer>helium</answer>", "helium", 1.0),
    (
        "Helium is the second lightest element and the second most abundant in the universe.\n<answer>helium</answer>",
        "helium",
        1.0,
    ),
    ("ANSWER: Marss", "Mars", 0.0),
    ("ANSWER: photosynthsis", "photosynthesis", 0.0),
    ("ANSWER: Mars or Venus", "Mars", "ambiguous"),
    ("ANSWER: Venus", "Mars", 0.0),
    ("ANSWER: **Jupiter**", "Jupiter", 1.0),
    ("ANSWER: *Jupiter*", "Jupiter", 1.0),
    ("ANSWER: SATURN", "Saturn", 1.0),
    ("ANSWER:    oxygen   ", "Oxygen", 1.0),
    ("ANSWER: 'Au'", "Au", 1.0),
    ("<answer>neon</answer>", "helium", 0.0),
    ("It could be Lisbon or Porto; I'm not certain which.", "Lisbon", "ambiguous"),
    ("ANSWER: Au", "Ag", 0.0),
    ("I don't know which element has that symbol.", "Ag", 0.0),
    ("ANSWER: eruo", "euro", 0.0),
    ("The answer is helium or hydrogen.", "helium", "ambiguous"),
    (r"ANSWER: $\boxed{\text{Tokyo}}$", "Tokyo", 1.0),
    (r"ANSWER: \text{mitochondria}", "mitochondria", 1.0),
    ("ANSWER: (Rome)", "Rome", 1.0),
    ("ANSWER: Rome.", "Rome", 1.0),
    ("ANSWER: Milan", "Rome", 0.0),
    (
        "Hamlet was written around 1600.\nFinal answer: **Shakespeare**",
        "Shakespeare",
        1.0,
    ),
    ("ANSWER: Shakspeare", "Shakespeare", 0.0),
    ("ANSWER: __Nile__", "Nile", 1.0),
    (
        "`bool([0])` is truthy because the list is non-empty.\nANSWER: `True`",
        "True",
        1.0,
    ),
    ("ANSWER: `False`", "True", 0.0),
    (
        "ANSWER: True or False, it depends on the interpreter version.",
        "True",
        "ambiguous",
    ),
    (
        "Japan's former imperial capital is well known, but the current capital moved in 1868.\nANSWER: Kyoto",
        "Tokyo",
        0.0,
    ),
    ("ANSWER: Pacific!", "Pacific", 1.0),
    ("ANSWER: Atlantic", "Pacific", 0.0),
    ("ANSWER: 'Pacific' or 'Atlantic'", "Pacific", "ambiguous"),
    ('The answer is "Leonardo da Vinci".', "Leonardo da Vinci", 1.0),
    ("ANSWER: [Leonardo da Vinci]", "Leonardo da Vinci", 1.0),
    ("ANSWER: Michelangelo", "Leonardo da Vinci", 0.0),
    ("<answer> Nitrogen </answer>", "nitrogen", 1.0),
    ("ANSWER：**euro**", "euro", 1.0),
    ("ANSWER: dollar", "euro", 0.0),
    ("Either euro or franc, depending on the year.", "euro", "ambiguous"),
    ("Two hydrogen atoms bonded to one oxygen atom.\nANSWER: H2O", "H2O", 1.0),
    ("ANSWER: Venus?", "Venus", 1.0),
    ("ANSWER: _Venus_ or _Mercury_", "Venus", "ambiguous"),
    (
        """Let's think step by step. The planet is called the Red Planet because iron oxide dust covers its surface.
It is the fourth planet from the Sun and has two small moons, Phobos and Deimos.
ANSWER: Mars""",
        "Mars",
        1.0,
    ),
    ('ANSWER: "Mars".', "Mars", 1.0),
    ("ANSWER:Berlin", "Berlin", 1.0),
    (r"ANSWER: \boxed{Paris}", "Paris", 1.0),
    (
        "A word that imitates the sound it describes, like 'buzz'. The answer is onomatopoeia!",
        "onomatopoeia",
        1.0,
    ),
    ("ANSWER: Ag (or possibly Au)", "Ag", "ambiguous"),
]
