package main

import "github.com/recallhq/recall/pkg/domain"

// seed gives a domain its WordNet synsets: trees (the synset and every
// hyponym under it, instances included) and only (the synset alone), at a
// weight; not names subtrees kept out of the domain whatever reaches them.
// Synsets are named lemma.p.NN: the lemma's NNth sense as part of speech p
// (n, v, a) in WordNet 3.0's order.
type seed struct {
	domain domain.Domain
	weight float64
	trees  []string
	only   []string
	not    []string
}

// seeds are general concepts, chosen for what a standing preference is about;
// the hyponym trees, the topics and the derivations bring in the specific
// words.
var seeds = []seed{
	{domain: domain.Food, weight: 1, trees: []string{
		"food.n.01", "food.n.02", "beverage.n.01", "drink.n.01", "meal.n.01", "meal.n.02",
		"dish.n.02", "cooking.n.01", "cuisine.n.01", "diet.n.01", "diet.n.03", "diet.n.04",
		"restaurant.n.01", "eating.n.01", "drinking.n.01", "eat.v.01", "eat.v.02", "drink.v.01",
		"drink.v.02", "cook.v.01", "cook.v.02", "bake.v.01", "bake.v.02", "cook.n.01",
		"kitchen_utensil.n.01", "cooking_utensil.n.01", "tableware.n.01", "dishware.n.01",
		"bar.n.02", "cafe.n.01", "bakery.n.01", "grocery_store.n.01",
		"edible_fruit.n.01", "vegetable.n.01", "herb.n.02", "spice.n.02", "nut.n.01",
		"taste.n.01", "taste_property.n.01", "vegetarian.n.01", "gourmet.n.01",
		"chef.n.01", "waiter.n.01", "baker.n.02", "food_allergy.n.01",
		"feed.v.06", "dine.v.01", "dine.v.02", "snack.v.01", "breakfast.v.01", "lunch.v.01",
		"brunch.v.01", "sup.v.01", "fast.v.01", "fast.v.02", "taste.v.01", "taste.v.04",
	}, not: []string{"food.n.03"}},
	{domain: domain.Food, weight: 0.6, trees: []string{
		"kitchen.n.01", "oven.n.01", "stove.n.01", "refrigerator.n.01", "picnic.n.01",
		"party.n.02", "alcoholic.n.01", "hunger.n.01", "thirst.n.01", "appetite.n.01",
	}},

	{domain: domain.Travel, weight: 1, trees: []string{
		"journey.n.01", "travel.n.01", "trip.n.01", "tourism.n.01", "tourist.n.01",
		"traveler.n.01", "vacation.n.01", "passenger.n.01", "conveyance.n.03",
		"public_transport.n.01", "transportation_system.n.01", "airport.n.01",
		"terminal.n.01", "airline.n.02", "flight.n.02",
		"flight.n.09", "air_travel.n.01", "travel.v.02", "travel.v.03", "travel.v.04",
		"travel.v.05", "travel.v.06", "fly.v.01", "fly.v.03", "fly.v.09", "fly.v.12",
		"commute.v.02", "commute.n.01", "tour.v.01", "sightseeing.n.01", "passport.n.01", "visa.n.01",
		"ticket.n.01", "fare.n.02", "itinerary.n.01", "itinerary.n.02", "luggage.n.01",
		"road.n.01", "highway.n.01", "railway.n.01", "railway.n.02", "port.n.01", "seaport.n.01",
		"aircraft.n.01", "vessel.n.02", "ship.n.01", "boat.n.01", "train.n.01",
		"bus.n.01", "taxi.n.01", "subway.n.01", "ride.v.02", "sail.v.01",
		"voyage.v.01", "cruise.n.01", "cruise.v.04", "get_around.v.04", "get_about.v.01", "emigration.n.01",
		"transit.n.02", "transit.n.03", "train.v.10", "jet_lag.n.01", "tourist_attraction.n.01",
	}, not: []string{"bike.n.01", "bicycle.n.01"}},
	{domain: domain.Travel, weight: 0.6, trees: []string{
		"city.n.01", "city.n.02", "country.n.02", "national_capital.n.01", "beach.n.01",
		"landmark.n.01", "vehicle.n.01", "destination.n.01", "map.n.01",
		"car.n.01", "motor_vehicle.n.01", "drive.v.01", "drive.v.02", "visit.v.01",
		"visit.v.03",
	}},

	{domain: domain.Lodging, weight: 1, trees: []string{
		"hotel.n.01", "hostel.n.01", "hostel.n.02", "motel.n.01", "resort.n.01",
		"accommodation.n.04", "hotel_room.n.01", "campsite.n.01",
		"bed_and_breakfast.n.01", "guesthouse.n.01", "lodge.n.04", "inn.n.01",
		"lodge.v.01", "lodge.v.04", "check_in.v.01", "check_out.v.02", "reservation.n.04", "reservation.n.06",
		"hotelier.n.01", "innkeeper.n.01", "vacation_home.n.01",
	}},

	{domain: domain.Health, weight: 1, trees: []string{
		"illness.n.01", "disease.n.01", "ill_health.n.01", "disorder.n.01", "symptom.n.01",
		"injury.n.01", "wound.n.01", "pain.n.01", "allergy.n.01", "medicine.n.01",
		"medicine.n.02", "medicine.n.03", "drug.n.01", "medical_care.n.01", "treatment.n.01",
		"therapy.n.01", "surgery.n.01", "health.n.01", "health.n.02", "health_professional.n.01",
		"doctor.n.01", "nurse.n.01", "patient.n.01", "hospital.n.01", "hospital.n.02",
		"clinic.n.01", "pharmacy.n.01", "vaccine.n.01", "pregnancy.n.01", "diagnosis.n.01",
		"sleep.n.01", "insomnia.n.01", "stress.n.02", "anxiety_disorder.n.01", "depression.n.01",
		"mental_health.n.01", "medical_checkup.n.01", "disability.n.01", "vitamin.n.01",
		"hurt.v.02", "ache.v.01", "ail.v.01", "heal.v.01", "cure.v.01", "treat.v.03",
		"sicken.v.02", "sleep.v.01", "diet.v.01", "diet.v.02", "dentist.n.01", "tooth.n.01",
		"overweight.n.01", "obesity.n.01", "medical_specialty.n.01", "healthy.a.01",
		"sick.a.01", "ill.a.01",
	}},
	{domain: domain.Health, weight: 0.5, trees: []string{
		"body_part.n.01", "organ.n.01", "body.n.01", "sick_person.n.01",
	}},

	{domain: domain.Sports, weight: 1, trees: []string{
		"sport.n.01", "sport.n.02", "exercise.n.01", "athletic_contest.n.01", "athlete.n.01",
		"sport.n.05", "team.n.01", "gym.n.01", "fitness.n.02", "exercise.v.03", "exercise.v.04",
		"work_out.v.04", "train.v.08", "sports_equipment.n.01", "stadium.n.01", "coach.n.01",
		"play.v.01", "compete.v.01", "outdoor_sport.n.01", "swimming.n.01", "swim.v.01",
		"jog.v.03", "run.n.03", "race.n.01", "ball.n.01",
		"match.n.02", "tournament.n.01", "olympic_games.n.01", "sports_fan.n.01",
		"playing_field.n.02", "skate.v.01", "ski.v.01", "golf.v.01", "bowl.v.01",
		"hike.n.01", "hike.v.02", "yoga.n.01", "yoga.n.02",
	}},

	{domain: domain.Entertainment, weight: 1, trees: []string{
		"movie.n.01", "film.n.02", "television.n.01", "broadcast.n.02", "show.n.03",
		"performance.n.02", "theater.n.01", "dramaturgy.n.01", "play.n.01", "play.n.02",
		"drama.n.01", "comedy.n.01", "entertainment.n.01", "entertainer.n.01", "actor.n.01",
		"game.n.01", "game.n.03", "video_game.n.01", "board_game.n.01", "card_game.n.01",
		"party.n.02", "festival.n.01", "festival.n.02", "amusement_park.n.01",
		"cinema.n.01", "circus.n.01", "circus.n.02", "zoo.n.01", "fun.n.01", "diversion.n.01",
		"nightlife.n.01", "nightclub.n.01", "gambling.n.01", "toy.n.01", "cartoon.n.01",
		"series.n.02", "episode.n.03", "celebrity.n.01", "star.n.04", "hobby.n.01",
		"amuse.v.02", "entertain.v.01", "party.v.01", "gamble.v.01", "act.v.03",
		"television_program.n.01", "radio_broadcast.n.01", "film_maker.n.01",
	}},

	{domain: domain.Reading, weight: 1, trees: []string{
		"book.n.01", "book.n.02", "literature.n.01", "literature.n.02", "literature.n.04",
		"novel.n.01", "novel.n.02", "poetry.n.01", "poem.n.01", "fiction.n.01",
		"writer.n.01", "poet.n.01", "novelist.n.01", "reader.n.01", "reading.n.01",
		"library.n.01", "library.n.02", "library.n.05", "bookstore.n.01",
		"read.v.01", "read.v.03", "magazine.n.01", "magazine.n.02",
		"publication.n.01", "genre.n.01", "literary_genre.n.01", "chapter.n.01",
		"author.n.01", "publisher.n.01", "bibliophile.n.01", "comic_book.n.01",
		"essay.n.01", "biography.n.01", "storybook.n.01", "love_story.n.01", "romance.n.05",
	}},

	{domain: domain.Music, weight: 1, trees: []string{
		"music.n.01", "music.n.03", "music.n.04", "song.n.01", "song.n.03",
		"musical_instrument.n.01", "musician.n.01", "musician.n.02", "singer.n.01",
		"concert.n.01", "musical_composition.n.01", "musical_genre.n.01", "band.n.02",
		"orchestra.n.01", "choir.n.01", "opera.n.01", "album.n.01", "recording.n.01",
		"sing.v.01", "sing.v.02", "play.v.03", "play.v.06", "play.v.07", "compose.v.02",
		"dance.n.01", "dance.n.02", "dance.v.01", "melody.n.01", "rhythm.n.01",
		"musical_performance.n.01", "karaoke.n.01", "playlist.n.01", "headphone.n.01",
		"composer.n.01", "concert_hall.n.01", "music_hall.n.01",
	}},

	{domain: domain.Arts, weight: 1, trees: []string{
		"art.n.01", "art.n.02", "painting.n.01", "painting.n.02",
		"drawing.n.02", "photography.n.01", "photography.n.02", "photograph.n.01",
		"sculpture.n.01", "sculpture.n.02", "museum.n.01", "gallery.n.03", "artist.n.01",
		"painter.n.01", "photographer.n.01", "sculptor.n.01", "handicraft.n.01",
		"handicraft.n.02", "needlework.n.01", "knitting.n.01", "pottery.n.01", "pottery.n.02",
		"ceramics.n.01", "paint.v.01", "paint.v.02", "draw.v.06", "sculpt.v.01",
		"photograph.v.01", "knit.v.01", "sew.v.01", "camera.n.01", "exhibition.n.01",
		"architecture.n.01", "calligraphy.n.01", "origami.n.01", "design.n.04",
	}},

	{domain: domain.Shopping, weight: 1, trees: []string{
		"clothing.n.01", "garment.n.01", "footwear.n.01", "footwear.n.02", "jewelry.n.01",
		"accessory.n.01", "cosmetic.n.01", "makeup.n.01", "toiletry.n.01", "perfume.n.02",
		"fashion.n.03", "style.n.04", "shopping.n.01", "shopping.n.02",
		"shop.v.01", "shop.v.02", "buy.v.01", "purchase.n.01", "shop.n.01",
		"mercantile_establishment.n.01", "department_store.n.01", "mall.n.02",
		"shopping_center.n.01", "marketplace.n.01", "boutique.n.01", "shopper.n.01",
		"customer.n.01", "discount.n.01", "sale.n.01", "sale.n.02", "bargain.n.02",
		"wear.v.01", "wear.v.02", "dress.v.01", "dress.v.02", "hairdressing.n.01",
		"hairdresser.n.01", "barber.n.02", "beauty_parlor.n.01", "manicure.n.01",
		"skin_care.n.01", "hairdo.n.01", "handbag.n.01", "watch.n.01", "brand.n.01",
		"order.v.02", "retailer.n.01",
	}},

	{domain: domain.Home, weight: 1, trees: []string{
		"dwelling.n.01", "house.n.01", "kitchen.n.01", "bathroom.n.01", "bedroom.n.01", "living_room.n.01", "home.n.01", "home.n.07",
		"apartment.n.01", "furniture.n.01", "furnishing.n.02", "home_appliance.n.01",
		"housework.n.01", "housekeeping.n.01", "household.n.01", "garden.n.01", "yard.n.02",
		"gardening.n.01", "gardener.n.01", "garden_tool.n.01", "interior_design.n.01",
		"floor_plan.n.01", "homeowner.n.01", "tenant.n.01", "landlord.n.01", "mortgage.n.01",
		"rent.n.01", "rent.v.01", "rent.v.02", "move.v.06", "relocation.n.01",
		"neighbor.n.01", "neighborhood.n.01", "clean.v.01", "vacuum.v.01", "tidy.v.01",
		"decorate.v.01", "renovate.v.01", "repair.v.01", "plumbing.n.01",
		"plumber.n.01", "garden.v.01", "mow.v.01", "housewife.n.01", "laundry.n.01",
		"launder.v.01", "cleaning.n.01", "bedding.n.01", "lamp.n.02", "plumbing_fixture.n.01", "faucet.n.01",
		"real_estate.n.01", "backyard.n.01", "balcony.n.01", "lawn.n.01", "houseplant.n.01",
	}},

	{domain: domain.Home, weight: 0.5, trees: []string{
		"floor.n.01", "wall.n.01", "roof.n.01", "window.n.01", "door.n.01", "room.n.01",
		"decoration.n.01",
	}, not: []string{"compartment.n.02"}},

	{domain: domain.Work, weight: 0.5, trees: []string{"worker.n.01"}},
	{domain: domain.Work, weight: 1, trees: []string{
		"occupation.n.01", "job.n.01", "job.n.02", "career.n.01", "profession.n.02",
		"employment.n.01", "employment.n.02", "unemployment.n.01", "workplace.n.01",
		"office.n.01", "employee.n.01", "employer.n.01", "colleague.n.01",
		"boss.n.01", "supervisor.n.01", "manager.n.01", "business.n.01", "business.n.02",
		"business.n.03", "company.n.01", "corporation.n.01", "meeting.n.01", "salary.n.01",
		"wage.n.01", "promotion.n.02", "resume.n.02", "job_interview.n.01", "interview.n.01",
		"work.v.02", "employ.v.01", "hire.v.01", "fire.v.04", "resign.v.01",
		"retire.v.01", "commute.v.02", "workday.n.01", "overtime.n.01",
		"deadline.n.01", "client.n.01", "client.n.02", "duty.n.02",
		"labor.n.02", "retirement.n.01", "staff.n.01", "freelancer.n.01",
		"entrepreneur.n.01", "trade.n.02", "industry.n.01",
	}},

	{domain: domain.Learning, weight: 1, trees: []string{
		"education.n.01", "education.n.02", "school.n.01", "school.n.02",
		"school.n.03", "educational_institution.n.01", "university.n.01",
		"university.n.03", "college.n.01", "course.n.01", "class.n.02", "class.n.04", "lesson.n.01",
		"study.n.02", "study.v.02", "learn.v.01", "learn.v.04",
		"teach.v.01", "tutor.v.01", "student.n.01", "pupil.n.01", "teacher.n.01",
		"educator.n.01", "examination.n.02", "test.n.03", "quiz.n.01", "homework.n.01",
		"diploma.n.01", "academic_degree.n.01", "grade.n.06", "curriculum.n.01",
		"textbook.n.01",
		"scholarship.n.01", "classroom.n.01", "campus.n.01", "graduate.v.01", "enroll.v.01",
		"learning.n.01", "training.n.01", "tutorial.n.01", "lecture.n.01", "exam.n.01",
	}, only: []string{
		"subject.n.03", "discipline.n.01", "science.n.01", "mathematics.n.01", "history.n.01",
		"physics.n.01", "chemistry.n.01", "biology.n.01", "geography.n.01", "linguistics.n.01",
	}},
	{domain: domain.Work, weight: 1, only: []string{"work.n.01", "project.n.01"}},
	{domain: domain.Work, weight: 0.5, trees: []string{"work.v.01"}},
	{domain: domain.Tech, weight: 1, only: []string{"database.n.01", "data.n.01"}},
	{domain: domain.Money, weight: 0.5, only: []string{"retirement.n.01"}},
	{domain: domain.Money, weight: 0.6, only: []string{"rent.n.01", "rent.v.01", "rent.v.02"}},
	{domain: domain.Lodging, weight: 0.6, only: []string{"cabin.n.01", "cabin.n.02"}},
	{domain: domain.Travel, weight: 0.6, only: []string{"cabin.n.01", "cabin.n.03"}},
	// A language's name is as often about a reply's language, a dish or a
	// country as about learning it: alone it does not make learning.
	{domain: domain.Learning, weight: 0.4, trees: []string{"language.n.01", "natural_language.n.01"}},

	{domain: domain.Family, weight: 1, trees: []string{
		"family.n.01", "family.n.02", "relative.n.01", "kin.n.01", "parent.n.01",
		"child.n.01", "child.n.02", "offspring.n.01", "son.n.01", "daughter.n.01",
		"mother.n.01", "father.n.01", "sibling.n.01", "brother.n.01", "sister.n.01",
		"grandparent.n.01", "grandchild.n.01", "spouse.n.01", "husband.n.01", "wife.n.01",
		"partner.n.03", "lover.n.01", "girlfriend.n.02", "boyfriend.n.01", "fiance.n.01",
		"marriage.n.01", "marriage.n.02", "marriage.n.03", "wedding.n.01", "divorce.n.01",
		"baby.n.01", "infant.n.01", "toddler.n.01", "teenager.n.01", "kid.n.01",
		"love.n.02", "romance.n.01", "date.n.02", "date.v.01",
		"friend.n.01", "friendship.n.01", "relationship.n.04", "parenthood.n.01",
		"childcare.n.01", "babysitter.n.01", "marry.v.01", "divorce.v.02", "wed.v.01",
		"raise.v.06", "adopt.v.05", "birthday.n.01", "anniversary.n.01", "in-law.n.01",
		"uncle.n.01", "aunt.n.01", "cousin.n.01", "nephew.n.01", "niece.n.01",
	}},

	{domain: domain.Pets, weight: 1, trees: []string{
		"pet.n.01", "dog.n.01", "house_cat.n.01", "kitten.n.01",
		"puppy.n.01", "hamster.n.01", "goldfish.n.01", "parrot.n.01", "budgerigar.n.01",
		"guinea_pig.n.02", "rabbit.n.01", "pet_shop.n.01", "veterinarian.n.01",
		"kennel.n.01", "leash.n.01", "dog_food.n.01", "cat_food.n.01", "aquarium.n.01",
		"litter.n.04", "walk.v.09", "groom.v.02", "bark.v.04", "meow.n.01", "pet.v.01",
		"horse.n.01",
	}},
	{domain: domain.Pets, weight: 0.9, only: []string{"cat.n.01"}},
	{domain: domain.Pets, weight: 0.7, trees: []string{"domestic_animal.n.01"}},

	{domain: domain.Money, weight: 1, trees: []string{
		"money.n.01", "money.n.02", "money.n.03", "finance.n.01", "finance.n.03",
		"bank.n.02", "bank.n.09", "bank.v.03", "bank.v.06", "bank_account.n.01", "savings.n.01", "investment.n.01",
		"investment.n.02", "investing.n.01", "stock.n.01", "share.n.02", "bond.n.02",
		"debt.n.01", "loan.n.01", "credit.n.02", "credit_card.n.01", "tax.n.01",
		"budget.n.01", "budget.n.02", "income.n.01", "expense.n.01", "cost.n.01",
		"price.n.02", "payment.n.01", "pay.v.01", "spend.v.02", "save.v.04", "invest.v.01",
		"borrow.v.01", "lend.v.02", "owe.v.01", "afford.v.01", "currency.n.01",
		"insurance.n.01", "pension.n.01", "mortgage.n.01", "financial_gain.n.01",
		"economy.n.03", "cheap.a.01", "expensive.a.01", "wealth.n.01", "wealth.n.03", "retirement_plan.n.01", "poverty.n.01",
		"accountant.n.01", "cash.n.01", "coin.n.01", "fund.n.01", "bill.n.02",
		"fee.n.01", "refund.n.01",
	}},

	{domain: domain.Tech, weight: 1, trees: []string{
		"computer.n.01", "computer_science.n.01", "software.n.01", "program.n.07",
		"hardware.n.03", "telephone.n.01", "cellular_telephone.n.01", "internet.n.01",
		"web_site.n.01", "electronic_equipment.n.01", "gadget.n.01", "computer_network.n.01",
		"programmer.n.01", "computer_user.n.01", "e-mail.n.01", "e-mail.v.01",
		"program.v.02", "computerize.v.01", "download.v.01", "upload.v.01", "browse.v.03",
		"information_technology.n.01", "engineering.n.02", "robot.n.01",
		"artificial_intelligence.n.01", "keyboard.n.01",
		"screen.n.03", "display.n.06", "digital_camera.n.01", "laptop.n.01",
		"computer_game.n.01", "technology.n.01", "electronics.n.01", "electronic_device.n.01",
		"telecommunication.n.01", "telephone.v.01",
	}},

	{domain: domain.Nature, weight: 1, trees: []string{
		"nature.n.03", "geological_formation.n.01", "body_of_water.n.01",
		"landscape.n.01", "wilderness.n.03", "forest.n.01", "mountain.n.01",
		"park.n.02", "national_park.n.01", "weather.n.01", "atmospheric_phenomenon.n.01",
		"climate.n.01", "flower.n.01",
		"flower.n.02", "tree.n.01", "wildlife.n.01", "bird.n.01", "bird_watcher.n.02",
		"hiking.n.01", "camping.n.01", "camp.v.01", "fishing.n.01", "hunting.n.01",
		"fish.v.02", "hunt.v.01", "outdoors.n.01", "environment.n.02", "ecology.n.01",
		"ecology.n.02", "conservation.n.02", "pollution.n.01", "garden.n.01", "sky.n.01",
		"sea.n.01", "river.n.01", "lake.n.01", "sunset.n.01", "rain.v.01", "snow.v.01",
		"hike.v.02", "hike.n.01", "backpacking.n.01", "mountaineering.n.01",
	}},

	{domain: domain.Nature, weight: 0.6, trees: []string{"season.n.02"}},
	{domain: domain.Nature, weight: 0.8, trees: []string{"animal.n.01", "plant.n.02"}, not: []string{
		"hominid.n.01", "female.n.01", "male.n.01", "young.n.01", "adult.n.02",
	}},

	{domain: domain.Vehicles, weight: 1, trees: []string{
		"motor_vehicle.n.01", "car.n.01", "motorcycle.n.01", "bicycle.n.01",
		"drive.v.01", "drive.v.02", "driver.n.01", "motorist.n.01", "driving.n.02",
		"auto_racing.n.01", "motorcycling.n.01", "cycling.n.01", "garage.n.01",
		"garage.n.02", "filling_station.n.01", "gasoline.n.01", "parking.n.01",
		"parking_lot.n.01", "traffic.n.01", "traffic_jam.n.01", "driver's_license.n.01",
		"tire.n.01", "automobile_engine.n.01", "car_dealer.n.01",
		"automotive_technology.n.01", "automobile_mechanic.n.01",
		"park.v.01", "motor.v.01", "racing.n.01", "electric.n.01",
	}},
}

// lexSignals give a domain to every synset of a lexicographer file, at a
// weight.
var lexSignals = []struct {
	lexfile string
	domain  domain.Domain
	weight  float64
}{
	{"noun.food", domain.Food, 1},
	{"verb.consumption", domain.Food, 0.3},
	{"noun.body", domain.Health, 0.5},
	{"verb.body", domain.Health, 0.4},
	{"noun.animal", domain.Nature, 0.7},
	{"noun.plant", domain.Nature, 0.7},
	{"verb.weather", domain.Nature, 0.8},
}

// topic is a WordNet topic (a synset other synsets point to with ";c":
// "bake" and "braise" have the topic cooking) whose members belong to a
// domain, at a weight.
type topic struct {
	name   string
	domain domain.Domain
	weight float64
}

// topics are the WordNet topics that are areas of life; the topics of
// sciences and scholarship (chemistry, law, linguistics) are not: their terms
// are technical, not about a user's life.
var topics = []topic{
	{"cooking.n.01", domain.Food, 0.8},
	{"air_travel.n.01", domain.Travel, 0.8},
	{"medicine.n.01", domain.Health, 0.8},
	{"medicine.n.03", domain.Health, 0.8},
	{"pathology.n.01", domain.Health, 0.6},
	{"psychiatry.n.01", domain.Health, 0.8},
	{"surgery.n.01", domain.Health, 0.8},
	{"dentistry.n.01", domain.Health, 0.8},
	{"sport.n.01", domain.Sports, 0.8},
	{"golf.n.01", domain.Sports, 0.8},
	{"baseball.n.01", domain.Sports, 0.8},
	{"football.n.01", domain.Sports, 0.8},
	{"american_football.n.01", domain.Sports, 0.8},
	{"basketball.n.01", domain.Sports, 0.8},
	{"boxing.n.01", domain.Sports, 0.8},
	{"tennis.n.01", domain.Sports, 0.8},
	{"soccer.n.01", domain.Sports, 0.8},
	{"cricket.n.02", domain.Sports, 0.8},
	{"ice_hockey.n.01", domain.Sports, 0.8},
	{"riding.n.01", domain.Sports, 0.6},
	{"chess.n.02", domain.Entertainment, 0.8},
	{"card_game.n.01", domain.Entertainment, 0.8},
	{"bridge.n.05", domain.Entertainment, 0.8},
	{"performing_arts.n.01", domain.Entertainment, 0.6},
	{"dramaturgy.n.01", domain.Entertainment, 0.8},
	{"literature.n.01", domain.Reading, 0.8},
	{"poetry.n.01", domain.Reading, 0.6},
	{"music.n.01", domain.Music, 0.8},
	{"music.n.03", domain.Music, 0.8},
	{"dancing.n.01", domain.Music, 0.6},
	{"art.n.02", domain.Arts, 0.8},
	{"fine_arts.n.01", domain.Arts, 0.8},
	{"photography.n.01", domain.Arts, 0.8},
	{"handicraft.n.02", domain.Arts, 0.8},
	{"architecture.n.02", domain.Arts, 0.5},
	{"stock_exchange.n.01", domain.Money, 0.8},
	{"tax.n.01", domain.Money, 0.8},
	{"commerce.n.01", domain.Money, 0.5},
	{"computer_science.n.01", domain.Tech, 0.8},
	{"computer.n.01", domain.Tech, 0.8},
	{"electronics.n.01", domain.Tech, 0.6},
	{"telecommunication.n.01", domain.Tech, 0.8},
	{"meteorology.n.02", domain.Nature, 0.6},
	{"ecology.n.02", domain.Nature, 0.6},
	{"car.n.01", domain.Vehicles, 0.8},
	{"driving.n.02", domain.Vehicles, 0.8},
}
