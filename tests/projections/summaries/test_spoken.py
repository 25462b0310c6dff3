"""Values as people say them reach the value ledger whole (the user's own words); how the
summary ranks them is in ``test_spoken_ranks``, names and ranks in ``test_value_names``."""

from __future__ import annotations

import pytest

from projections.summaries.values import text_values
from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Can we do half past 1 in the afternoon?", "time", "half past 1 in the afternoon"),
        ("quarter to seven in the evening works", "time", "quarter to seven in the evening"),
        ("leave at 8 o'clock at night", "time", "8 o'clock at night"),
        ("around 5:30 in the evening", "time", "5:30 in the evening"),
        ("meet at noon", "time", "noon"),
        ("book it for the 8th please", "date", "the 8th"),
        ("I fly on the 21st of May 2024.", "date", "on the 21st of May 2024"),
        ("let's say next Friday", "date", "next Friday"),
        ("the day after tomorrow is fine", "date", "the day after tomorrow"),
        ("on Friday the 13th", "date", "on Friday the 13th"),
        ("I paid three days ago", "relative", "three days ago"),
        # a text message's shorthand; a range of days after a month
        ("can u book 4 me tmrw at 7?", "relative", "tmrw"),
        ("meet 2nite around 8ish", "relative", "2nite"),
        ("cancel my appt on mon", "date", "on mon"),
        ("we're away jan 5th-9th", "date", "jan 5th-9th"),
        # a range: its lower bound with the unit of its upper
        (
            "our budget is between 1,500 and 2,000 dollars",
            "amount",
            "between 1,500 and 2,000 dollars",
        ),
        ("somewhere from 300 to 400 euros", "amount", "300 to 400 euros"),
        ("we need between 10 and 12 chairs", "tally", "between 10 and 12 chairs"),
        ("leave a 10-15% tip", "amount", "10-15%"),
        ("about 20 or 30 guests", "count", "20 or 30 guests"),
        # a part of a period, said before it
        ("I need it by the end of next week.", "date", "the end of next week"),
        ("early next month works", "date", "early next month"),
        ("later this week is fine", "date", "later this week"),
        ("cancel it at the end of this billing cycle", "relative", "end of this billing cycle"),
        ("by the end of the quarter, please", "relative", "end of the quarter"),
        ("at the start of the school year", "relative", "start of the school year"),
        ("before the end of last quarter", "relative", "end of last quarter"),
        ("before the end of last year", "date", "the end of last year"),
        ("a table for two", "count", "table for two"),
        ("two tickets, please", "count", "two tickets"),
        ("we need a couple of nights", "count", "a couple of nights"),
        ("it cost 300 yuan", "amount", "300 yuan"),
        ("dinner at Ruth's Chris Steak House", "name", "Ruth's Chris Steak House"),
        ("we stayed at Hotel del Coronado", "name", "Hotel del Coronado"),
        ('play "The Lion King" again', "name", '"The Lion King"'),
        ("a trip to the Statue of Liberty", "name", "Statue of Liberty"),
        ("my blood pressure was 138/85 today", "number", "138/85"),
        ("a GPA of 3.8 last term", "number", "3.8"),
        ("we rated it 3.5 stars", "count", "3.5 stars"),
        ("a hall for 2,500 people", "count", "2,500 people"),
        ("raised 12,000,000 in the round", "number", "12,000,000"),
        ("System downtime from 10 AM - 12 PM today", "time", "10 AM - 12 PM"),
        ("open 9:00 to 17:30 on weekdays", "time", "9:00 to 17:30"),
        ("focus on numbers 1-20.", "number", "1-20"),
        ("Metformin 1000 mg twice a day", "quantity", "1000 mg"),
        ("ALT levels at 42 U/L, a little high", "quantity", "42 U/L"),
        ("OncoPharm is the target", "name", "OncoPharm"),
        ("I sold it on eBay", "name", "eBay"),
        (
            "the merger of BioCrest Labs and OncoPharm Therapeutics",
            "name",
            "BioCrest Labs and OncoPharm Therapeutics",
        ),
        ("For my Type 2 Diabetes, I take it daily", "name", "Type 2 Diabetes"),
        ("I finished Witcher 3 last week", "name", "Witcher 3"),
        ("the office at Suite 436 downstairs", "name", "Suite 436"),
        ("I'm in Room 1204 tonight", "name", "Room 1204"),
        ("dinner at 7.30pm works", "time", "7.30pm"),
        ("a $1.2M budget", "amount", "$1.2M"),
        ("ship it to 1600 Amphitheatre Parkway", "name", "1600 Amphitheatre Parkway"),
        ("we stay at 221B Baker Street", "name", "221B Baker Street"),
        ("the total was EUR 120 in cash", "amount", "EUR 120"),
        ("I'm 34 years old", "count", "34 years"),
        ("departing 04/15/2024, back on the 22nd", "date", "04/15/2024"),
        ("on 15.04.24 we fly", "date", "15.04.24"),
        ("due 12-10-2023 at the latest", "date", "12-10-2023"),
        ("a movie at AMC Mercado 20 around 9 pm", "name", "AMC Mercado 20"),
        ("a cab to JFK Airport, please", "name", "JFK Airport"),
        ("an appointment at UCLA Medical Center", "name", "UCLA Medical Center"),
        ("Book it for the twenty-first of June.", "date", "the twenty-first of June"),
        ("on the first of May we leave", "date", "on the first of May"),
        ("June the fourth works", "date", "June the fourth"),
        ("how about March twenty-third, 2025?", "date", "March twenty-third, 2025"),
        ("on Friday the thirteenth", "date", "on Friday the thirteenth"),
        ("my budget is fifteen hundred dollars", "amount", "fifteen hundred dollars"),
        ("two thousand five hundred euros at most", "amount", "two thousand five hundred euros"),
        ("about fifty bucks", "amount", "fifty bucks"),
        ("we are fifteen people", "count", "fifteen people"),
        ("it takes twenty-four hours", "count", "twenty-four hours"),
        ("pick me up at 9 tomorrow morning", "time", "9 tomorrow morning"),
        ("call at 7:30 this evening", "time", "7:30 this evening"),
        ("I land at 7:45 pm.", "time", "7:45 pm"),
        ("around 5 p.m. today", "time", "5 p.m."),
        ("My daughter's name is Mary-Kate O'Neil.", "name", "Mary-Kate O'Neil"),
        ("we met Jean-Luc Picard there", "name", "Jean-Luc Picard"),
        ("call O’Brien now", "name", "O’Brien"),
        ("a gate at Chicago O'Hare", "name", "Chicago O'Hare"),
        (
            "fly into Seattle-Tacoma International Airport",
            "name",
            "Seattle-Tacoma International Airport",
        ),
        ("cancel order #W2378156 please", "id", "#W2378156"),
        ("call between 3 and 5 pm", "time", "3 and 5 pm"),
        ("Me llamo José Núñez", "name", "José Núñez"),
        ("Ich heiße Anna Müller", "name", "Anna Müller"),
        ("ask for Nguyễn Văn An", "name", "Nguyễn Văn An"),
        ("the café Zoë was nice", "name", "Zoë"),
        ("两张票，预算500元", "amount", "500元"),
        ("我叫王小明，订单号是W2378156", "id", "W2378156"),
        ("体重70 kg", "quantity", "70 kg"),
        ("I weigh 70kg", "quantity", "70kg"),
        ("I ran 5km in 25 min", "count", "25 min"),
        ("it takes 2.5 hours", "count", "2.5 hours"),
        ("maybe 1 and a half hours", "count", "1 and a half hours"),
        ("back in half an hour", "count", "half an hour"),
        ("delivered within 3 business days", "count", "3 business days"),
        ("just one more night", "count", "one more night"),
        ("with one checked bag", "count", "one checked bag"),
        ("the card ends in 0042", "number", "0042"),
        ("the conference is on Wed, Oct 9.", "date", "Wed, Oct 9"),
        ("leave on Sunday the 9th of June", "date", "on Sunday the 9th of June"),
        ("hold it for 30-60 seconds", "count", "30-60 seconds"),
        ("set it to 72 degrees", "count", "72 degrees"),
        ("it costs 45€ in cash", "amount", "45€"),
        ("a $1.2 million budget", "amount", "$1.2 million"),
        ("1.299,99 euros in total", "amount", "1.299,99 euros"),
        ("we arrive around 19h30", "time", "19h30"),
        ("book it for the day after tomorrow at half six", "time", "half six"),
        ("on Friday from 10 to 11.", "time", "10 to 11"),
        ("it expires in May 2027", "date", "May 2027"),
        ("the postcode is CB2 1TN", "id", "CB2 1TN"),
        ("my flight is AA 1234 today", "id", "AA 1234"),
        ("the Marriott on 5th Avenue", "name", "5th Avenue"),
        ("at 172 Boulevard Saint-Germain", "name", "172 Boulevard Saint-Germain"),
        ("Book the Cambridge Belfry for me", "name", "Cambridge Belfry"),
        ("an appointment with Dr. Patel", "name", "Dr. Patel"),
        ("we fly to St. Louis", "name", "St. Louis"),
        ("let's aim for mid-March", "date", "mid-March"),
        ("sometime in early June", "date", "early June"),
        ("about a 3-hour drive", "count", "3-hour"),
        ("a 2-bedroom condo", "count", "2-bedroom"),
        ("the 22nd or 23rd", "date", "23rd"),
        ("How about Friday at 5?", "time", "at 5"),
        ("call me at 5 this Friday", "time", "at 5"),
        ("we arrive around eight, I think", "time", "around eight"),
        ("Add 2 cokes and a large pizza.", "tally", "2 cokes"),
        ("order 2 large pepperoni pizzas to go", "tally", "2 large pepperoni pizzas"),
        ("I'd like three iced lattes", "tally", "three iced lattes"),
        ("we have 2 kids and 3 dogs", "tally", "3 dogs"),
        ("2 free checked bags per passenger", "tally", "2 free checked bags"),
        ("Seats in row 12 please.", "number", "row 12"),
        ("I'm at gate 23.", "number", "gate 23"),
        ("Our train leaves from platform 4, right?", "number", "platform 4"),
        ("a size 10 in blue", "number", "size 10"),
        ("My appointment is on 3/15.", "date", "3/15"),
        ("from 3/15 to 3/20", "date", "3/20"),
        ("the new Nike Pegasus 40.", "name", "Nike Pegasus 40"),
        ("we watched Toy Story 3 yesterday", "name", "Toy Story 3"),
        ("I finished Witcher 3.", "name", "Witcher 3"),
        ("My flight UA 838 lands at 7:20 am", "id", "UA 838"),  # a name's number, no tally
        ("then Route 66 runs west", "name", "Route 66"),
        ("My order number is 112-7734519-0041", "id", "112-7734519-0041"),
        ("the serial is 4471-0932-1187, I think", "id", "4471-0932-1187"),
        ("ticket 20240517-88 was refunded", "id", "20240517-88"),
        ("I left my bag on bus number 38", "number", "number 38"),
        ("I want table #12 by the window", "number", "#12"),
        ("Take bus No. 5 downtown", "number", "No. 5"),
        ("The invoice total was €1.234,56", "amount", "€1.234,56"),  # the comma a decimal
        ("paid EUR 1.234,56 by card", "amount", "EUR 1.234,56"),
        ("I want to leave after 9.15", "time", "after 9.15"),  # a clock time with a dot
        ("What's the weather in Vancouver, BC on 3/4?", "name", "Vancouver, BC"),
        ("we moved to Austin, TX.", "name", "Austin, TX"),
        ("My car is a 2019 Toyota RAV4", "name", "Toyota"),
        ("How about a week from Friday?", "date", "a week from Friday"),
        ("Maybe the Monday after next", "date", "Monday after next"),
        ("Can we do this coming Monday?", "date", "this coming Monday"),
        ("every other Thursday works", "date", "every other Thursday"),
        ("Reschedule to the first Monday of next month", "date", "first Monday of next month"),
        ("sometime in the first week of July", "date", "first week of July"),
        ("I'll pay by the end of the month", "relative", "end of the month"),
        ("We're free the weekend of the 20th", "date", "weekend of the 20th"),
        ("the deadline is 2024-06-01T17:00", "date", "2024-06-01T17:00"),
        ("the event starts at 7 and ends at 10", "time", "at 7"),  # an hour before "and"
        ("book from Jan 5-9", "date", "Jan 5-9"),  # a month and its days
        ("It's $45/night", "amount", "$45/night"),  # an amount per unit
        ("Set it to 72°F", "quantity", "72°F"),
        ("I'm 6'2\" and 190 lbs", "quantity", "6'2\""),
        ("I'm 6'2\" and 190 lbs", "quantity", "190 lbs"),  # a symbol, no tally
        ("we need 1.5 liters of water", "quantity", "1.5 liters of water"),
        ("half a pound of ground beef, please", "quantity", "half a pound of ground beef"),
        ("two pounds of apples", "quantity", "two pounds of apples"),  # weight, not money
        ("a quarter pound of ham", "quantity", "a quarter pound of ham"),
        ("it costs five pounds", "amount", "five pounds"),
        ("It's Suite 200 on the second floor", "name", "Suite 200"),  # no "It's" in a name
        ("I live at 123 Main St, Apt. 4B", "name", "Apt. 4B"),
        ("Deliver to 4400 W Sunset Blvd", "name", "4400 W Sunset Blvd"),
        ("Can I get the 12-inch pizza?", "quantity", "12-inch"),  # a measure, no identifier
        ("The budget is 2-3k", "quantity", "2-3k"),
        ("take 10-20 mg daily", "quantity", "10-20 mg"),
        # the bounds that keep a long run of capitals linear leave real names whole
        ("we toured the Royal Botanic Garden of Sydney", "name", "Royal Botanic Garden of Sydney"),
        ("we moved to Rancho Santa Margarita, CA.", "name", "Rancho Santa Margarita, CA"),
        ("lunch near the UCLA Medical Center today", "name", "UCLA Medical Center"),
        ("Quiero reservar para el 5 de mayo", "date", "5 de mayo"),  # other languages' dates
        ("Je voudrais partir le 3 mars à 14h30", "date", "3 mars"),
        ("Ich möchte am 12. Juni um 9 Uhr fliegen", "date", "12. Juni"),
        ("Ich möchte am 12. Juni um 9 Uhr fliegen", "time", "9 Uhr"),
        ("em 7 de setembro de 2025", "date", "7 de setembro de 2025"),
        ("予約は3月5日の午後2時です", "time", "2時"),
        ('"created_at": "2024-05-15T15:00:00Z"', "date", "2024-05-15T15:00:00Z"),
        # an hour and its minutes apart or in words; about an hour; a weekday abbreviated; a
        # day in words
        ("let's say at eight thirty", "time", "at eight thirty"),
        ("seven fifteen pm works", "time", "seven fifteen pm"),
        ("around eight fifteen in the morning", "time", "around eight fifteen in the morning"),
        ("book it for 2 30 pm", "time", "2 30 pm"),
        ("eight-thirty is fine", "time", "eight-thirty"),
        ("see you 7:30ish", "time", "7:30ish"),
        ("come by 5ish", "time", "5ish"),
        ("thurs at 5", "date", "thurs"),
        ("we can do this Sat", "date", "this Sat"),
        ("how about Sat the 9th", "date", "Sat the 9th"),
        ("book it for the fourteenth", "date", "the fourteenth"),
        ("how about the twenty third", "date", "the twenty third"),
        ("a table for the four of us", "count", "the four of us"),  # a party's size
        ("get me 3 x 250g packs", "quantity", "250g"),  # grams glued to their number
        ("I'm in seat 14c", "id", "14c"),  # a seat's letter is no unit
        # minutes in digits after a space; a day in small letters; ranges of hours; parties,
        # dozens, "a couple hundred"; areas; a plural's number; a setting
        ("let's meet at 2 30", "time", "at 2 30"),
        ("let's do 7 45 tomorrow", "time", "7 45 tomorrow"),
        ("are you free this sat?", "date", "this sat"),
        ("can you deliver between 2 and 4?", "time", "2 and 4"),
        ("between 10 and 11 in the morning", "time", "between 10 and 11 in the morning"),
        ("all five of us will fly", "count", "all five of us"),
        ("the three of them are coming", "count", "the three of them"),
        ("order half a dozen bagels", "tally", "half a dozen bagels"),
        ("a dozen people", "count", "a dozen people"),
        ("it cost a couple hundred dollars", "amount", "a couple hundred dollars"),
        ("the apartment is 850 sq ft", "quantity", "850 sq ft"),
        ("about 1,200 square feet", "quantity", "1,200 square feet"),
        ("tickets for 2 please", "count", "for 2"),
        ("dinner for two", "count", "dinner for two"),
        ("set the thermostat to 68", "number", "68"),
        ("I need it in 3 to 5 business days", "count", "3 to 5 business days"),
        ("fly out Friday evening", "date", "Friday evening"),
    ],
)
def test_spoken_values_are_found_whole(text: str, kind: str, value: str) -> None:
    found = [(k, v) for k, v, _ in text_values(text)]
    assert (kind, value) in found, found


def test_words_that_only_look_like_a_date_are_no_date() -> None:
    # a month in words opens a date only capitalised; an ordinal in words needs its month
    for text in ("you may first check", "the second of two options", "on the third floor"):
        assert not [v for k, v, _ in text_values(text) if k == "date"], text


def test_forms_that_only_look_like_the_new_ones_are_not_read_as_them() -> None:
    for text, kind, value in (
        ("from 10 to 11 people came", "time", "10 to 11"),  # a range of people
        ("we eat at 5 every day", "count", "5 every day"),  # a time, then a phrase of its own
        ("OK 3 people then", "id", "OK 3"),  # a word in capitals, not a carrier's code
        ("it ends at 5 PM 2 days later", "id", "PM 2"),
        ("the 8th March works", "name", "8th March"),  # a date, not a numbered street
        ("we took them one by one.", "time", "by one"),
        ("One summer day we went out", "count", "One summer day"),
        ("TSH at 2.1 mIU/L", "time", "at 2"),  # a reading, not an hour
        ("meet at 5 Main Street", "time", "at 5"),
        ("around 8 people came", "time", "around 8"),
        ("Yes. Please go ahead", "name", "Yes. Please"),  # a word with a vowel ends a sentence
        ("It costs 2 dollars.", "tally", "2 dollars"),  # an amount
        ("it's 2 blocks\nthanks", "tally", "2 blocks\nthanks"),  # never over a line break
        ("I want 2 thanks", "tally", "2 thanks"),  # a word that only ends like a plural
        ("the office at Suite 436 downstairs", "tally", "436 downstairs"),
        ("we saw it 3 last night", "count", "3 last night"),  # "last night" is a time
        ("two reservations have flights", "tally", "two reservations have flights"),
        ("a Thai place open past 11 that delivers", "tally", "11 that delivers"),
        ("3 of the best players", "tally", "3 of the best players"),
        ("I finished at least 2.", "number", "least 2"),  # no thing's number
        ("I finished in the top 3.", "number", "top 3"),
        ("He is 35.", "number", "is 35"),
        ("seats in row 12\nthanks", "number", "row 12\nthanks"),
        ("rated it 3/5", "date", "3/5"),  # a rating: no word places it in time
        ("up to 3/4 of the way", "date", "3/4"),
        ("My flight UA 838 lands at 7:20 am", "tally", "838 lands"),
        ("the score was 3-2 in 2019-2020", "id", "3-2"),  # a score and a range stay numbers
        ("the score was 3-2 in 2019-2020", "id", "2019-2020"),
        ("take the 2 bus home", "tally", "2 bus"),  # "ss" and "us" end no plural
        ("I want 2 glass jars", "tally", "2 glass"),
        ("a 3 bonus round", "tally", "3 bonus"),
        ("it costs at 9.99 each", "time", "at 9.99"),  # a price: no minutes over 59
        ("at 4.25% interest", "time", "at 4.25"),
        ("Yes, OK", "name", "Yes, OK"),  # a word in capitals is no region
        ("At 31, I made Vice President", "name", "At 31"),  # a word, no abbreviation
        ("readings of 135-140/80-90 mmHg", "name", "mmHg"),  # still the quantity "90 mmHg"
        ("at 5 and a half", "time", "at 5"),  # a number's part after "and": no hour
        ("around 8 and 9 people came", "time", "around 8"),
        ("Sure, NY works", "name", "Sure, NY"),  # a sentence's first word, a verb after
        ("for the fourth time", "date", "the fourth"),  # a rank: the noun after it
        ("we sat the kids down", "date", "sat the"),  # "sat" needs "this" or a day after it
        ("at 10 15 people came", "time", "at 10 15"),  # a number of people, no minutes
        ("this sat well with me", "date", "this sat"),  # a verb: a word follows it
        ("10 kg of rice", "quantity", "10 kg of"),  # a second unit has no vowel
        ("thanks for 2.", "count", "for 2"),  # a word that only ends like a plural
    ):
        found = [(k, v) for k, v, _ in text_values(text)]
        assert (kind, value) not in found, (text, found)
    # the day first is one date with its year, not a month and a year
    assert ("date", "8 May, 2023") in [(k, v) for k, v, _ in text_values("on 8 May, 2023")]
    # inside a sentence, "X the Y" stays a name
    found = [(k, v) for k, v, _ in text_values("We met Alexander the Great there.")]
    assert ("name", "Alexander the Great") in found, found


def test_a_number_is_never_cut_at_its_separator() -> None:
    # "3.5 stars" was read as "5 stars", "2,500 people" as "500 people"
    found = [v for _, v, _ in text_values("3.5 stars for 2,500 people, 1.25 kg, 10,000 steps")]
    assert not {"5 stars", "500 people", "25 kg", "000 steps"} & set(found), found


def test_a_quantitys_unit_is_a_symbol_not_a_word() -> None:
    # a unit has no vowel ("mg", "kWh") or is a ratio ("U/L"); words and ordinals are not units
    text = "2 of them, 3 by 4, the 12 th, 5 my friends, 10 am, 21st, 7 kWh"
    found = [(k, v) for k, v, _ in text_values(text)]
    assert [v for k, v in found if k == "quantity"] == ["7 kWh"], found
    assert ("number", "9 to 5") not in [(k, v) for k, v, _ in text_values("open 9 to 5")]


def test_a_quantity_keeps_what_it_measures_after_of() -> None:
    # "20mg of lisinopril": the dose and its drug are one value; a determiner or a relative
    # pronoun after "of" names no substance
    found = [(k, v) for k, v, _ in text_values("I take 20mg of lisinopril, and 2 tbsp of sugar.")]
    assert found == [("quantity", "20mg of lisinopril"), ("quantity", "2 tbsp of sugar")]
    for text, quantity in (("5 kg of which", "5 kg"), ("20 mg of the pills", "20 mg")):
        assert ("quantity", quantity) in [(k, v) for k, v, _ in text_values(text)], text


def test_a_verb_before_a_quantity_is_no_address_unit() -> None:
    # "Add" has the shape of "Apt" (a capital, no vowel after it): "Add 500" was a name and the
    # quantity was lost; a number a unit follows is the quantity's
    for text, quantity in (("Add 500 g of flour.", "500 g of flour"), ("Add 2 l", "2 l")):
        assert [(k, v) for k, v, _ in text_values(text)] == [("quantity", quantity)], text
    for text, unit in (("Apt 4B is on the left.", "Apt 4B"), ("Rm 12 at the end", "Rm 12")):
        assert [(k, v) for k, v, _ in text_values(text)] == [("name", unit)], text


def test_a_name_takes_a_small_number_not_a_time_or_a_decimal() -> None:
    for text, name in (
        ("the Meeting 10 am sharp", "Meeting"),
        ("we meet in Room 5:30 today", "Room"),
        ("we use Python 3.11 now", "Python"),
        ("see Chapter 10-12 again", "Chapter"),
    ):
        names = [v for k, v, _ in text_values(text) if k == "name"]
        assert names == [name], (text, names)


def test_a_clock_time_is_never_cut_after_its_dot() -> None:
    # "7.30pm" was read as the time "30pm"
    values = [v for _, v, _ in text_values("at 7.30pm or 8.15 am, not 1.5pm")]
    assert "7.30pm" in values, values
    assert "8.15 am" in values, values
    assert not {"30pm", "15 am", "5pm"} & set(values), values


def test_a_multiplier_is_not_a_unit_and_a_year_is_not_a_house_number() -> None:
    found = [(k, v) for k, v, _ in text_values("2 x 500ml bottles; in 2019 New York was busy")]
    assert ("quantity", "2 x") not in found, found
    assert ("name", "New York") in found, found


def test_a_name_never_runs_over_a_line_break() -> None:
    # "Yes\n\nPlease" was a name: two paragraphs, each opening with a capital
    text = "Yes\n\nPlease book Los Angeles.\nGrand Hyatt\nBank of\nAmerica\nJFK\nAirport 4"
    names = [v for k, v, _ in text_values(text) if k == "name"]
    assert names == ["Los Angeles", "Grand Hyatt"], names  # a name on its own line is one
    assert ("name", "Bank of America") in [(k, v) for k, v, _ in text_values("at Bank of America")]


def test_a_fields_label_is_not_a_value() -> None:
    # a list or table the agent wrote: its labels open their lines and end at a colon
    text = "Trip Type: One Way\n- **Flight Number**: HAT001\n  2. Cabin Class: Basic Economy"
    found = [(k, v) for k, v, _ in text_values(text)]
    assert found == [("id", "HAT001"), ("name", "One Way"), ("name", "Basic Economy")], found
    # inside a sentence, a name before a colon stays a name
    found = [(k, v) for k, v, _ in text_values("We stay at the Grand Hyatt: near it.")]
    assert found == [("name", "Grand Hyatt")], found


def test_a_date_in_digits_keeps_one_separator_and_a_year() -> None:
    # a version, a score and a ratio are not dates (a month and day without the year is one
    # only after a word that places it in time: "on 3/14")
    for text in ("we run Python 3.11.2", "it ended 1-2-3", "scored 3/14 at 5", "10.0.19041"):
        kinds = [k for k, _, _ in text_values(text)]
        assert "date" not in kinds, (text, kinds)


def test_an_acronym_alone_stays_a_code() -> None:
    found = [(k, v) for k, v, _ in text_values("the code is ABCD, fly to NYC at 9 pm")]
    assert ("code", "ABCD") in found, found
    assert ("code", "NYC") in found, found
    # a sentence's first word is not a name's: "The API", "From EWR" keep the code alone
    found = [(k, v) for k, v, _ in text_values("The API is down. From EWR to JFK, then.")]
    assert found == [("code", "API"), ("code", "EWR"), ("code", "JFK")], found


def test_pronouns_and_card_digits_are_not_dates() -> None:
    # what dateparser's search_dates took for dates in the corpora (docs/quality.md)
    for text in ("Now we may go on.", "use the card ending in 7334", "I am a gold member"):
        kinds = {k for k, _, _ in text_values(text)}
        assert not kinds & {"date", "time", "relative"}, (text, kinds)
    assert ("name", "I'm Sophia") not in [(k, v) for k, v, _ in text_values("I'm Sophia Silva")]


def test_a_range_takes_only_a_bare_number_before_it() -> None:
    # Each bound with its own unit is a value of its own; "and" joins a range only after
    # "between"; a number that is part of a code or a date is no bound.
    assert values_read("between $50 and $80 a night") == [
        ("amount", "$50"),
        ("amount", "$80 a night"),
    ]
    assert ("count", "3 kids") in values_read("I have 3 kids and 2 dogs")
    assert ("tally", "2 dogs") in values_read("I have 3 kids and 2 dogs")
    assert ("count", "3 nights") in values_read("in 2024-05 3 nights")
